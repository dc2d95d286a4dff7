"""What a training process under the sidecar tells it about its progress, through the spool folder.

The writer thread (never the training thread) rewrites ``progress-<pid>.json`` after each batch
with steps: the last step, its time, the typical step time of the batch, and the signal on which
``faulthandler`` dumps every thread's stack into ``stacks-<pid>.txt``. The sidecar's stall watcher
reads it to notice a stall and to know whether it may ask for stacks.
"""

from __future__ import annotations

import faulthandler
import json
import os
import signal
from pathlib import Path

STACK_SIGNAL = signal.SIGUSR1


class Progress:
    """Writes the progress file of this process into ``spool_dir``."""

    def __init__(self, spool_dir: Path) -> None:
        self.spool_dir = Path(spool_dir)
        self.pid = os.getpid()
        self.path = self.spool_dir / f"progress-{self.pid}.json"
        self.stack_signal: int | None = None
        self.stack_file: Path | None = None
        self._stack_fh = None

    def register_stacks(self) -> bool:
        """Let the sidecar ask for this process's stacks with a signal. Only takes a signal that
        nobody else handles: a program's own SIGUSR1 handler stays untouched."""
        try:
            if signal.getsignal(STACK_SIGNAL) not in (signal.SIG_DFL, None):
                return False
            self.stack_file = self.spool_dir / f"stacks-{self.pid}.txt"
            # Kept open for the life of the process: faulthandler writes to the descriptor directly.
            self._stack_fh = open(self.stack_file, "ab")  # noqa: SIM115
            faulthandler.register(STACK_SIGNAL, file=self._stack_fh, all_threads=True, chain=False)
            self.stack_signal = int(STACK_SIGNAL)
            return True
        except (OSError, RuntimeError, ValueError, AttributeError):
            return False

    def update(self, steps: list) -> None:
        """Record the last of ``steps`` (``(n, wall time, duration, wait)`` rows of one batch)."""
        n, ts, _, _ = steps[-1]
        durations = sorted(s[2] for s in steps)
        info = {
            "pid": self.pid,
            "step": n,
            "ts": ts,
            "p50": durations[len(durations) // 2],
            "stack_signal": self.stack_signal,
            "stack_file": str(self.stack_file) if self.stack_file else None,
        }
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(info))
            os.replace(tmp, self.path)
        except OSError:  # a full disk: the stall watcher sees the last progress that fitted
            tmp.unlink(missing_ok=True)
