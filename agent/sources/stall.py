"""Stall evidence: when the training process stops stepping for much longer than usual, take its
Python stacks once and send them as a ``stacks`` event.

The child's ``Monitor`` (under the sidecar) leaves ``progress-<pid>.json`` in the spool folder from
its writer thread: last step, when, the typical step time, and the signal on which it registered
``faulthandler``. The sidecar reads that file, never the child's memory. Stacks come from
``py-spy dump --pid`` when py-spy is installed, else from that signal (faulthandler writes every
thread's stack into ``stacks-<pid>.txt``). A child that registered nothing is never signalled.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

from tpuwatch import log, wire

MAX_STACKS = 64 << 10


def read_progress(spool_dir: Path) -> dict | None:
    """The most recent progress record of any process in the folder."""
    best = None
    for path in spool_dir.glob("progress-*.json"):
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue  # being replaced, or not ours
        if isinstance(data, dict) and isinstance(data.get("ts"), (int, float)):
            if best is None or data["ts"] > best["ts"]:
                best = data
    return best


class StallWatcher:
    """Watches the progress file; a step overdue by ``max(floor, factor * p50)`` triggers a dump."""

    name = "stall stacks"

    def __init__(
        self,
        monitor,
        spool_dir: Path,
        *,
        floor: float = 300.0,
        factor: float = 20.0,
        check_every: float = 1.0,
        max_dumps: int = 3,
    ) -> None:
        self.monitor = monitor
        self.spool_dir = Path(spool_dir)
        self.floor = floor
        self.factor = factor
        self.check_every = check_every
        self.max_dumps = max_dumps
        self.dumps = 0
        self._dumped_step = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tpuwatch-stall", daemon=True)

    def start(self) -> StallWatcher:
        self._thread.start()
        return self

    def stop(self, timeout: float = 1.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def check(self, now: float | None = None) -> bool:
        """One look at the progress file; True when stacks were taken."""
        progress = read_progress(self.spool_dir)
        if progress is None or self.dumps >= self.max_dumps:
            return False
        now = time.time() if now is None else now
        quiet = now - progress["ts"]
        threshold = max(self.floor, self.factor * float(progress.get("p50") or 0))
        step = progress.get("step")
        if quiet < threshold or step == self._dumped_step:
            return False
        self._dumped_step = step  # once per stall: the next dump needs steps to resume first
        self.dumps += 1
        pid = int(progress.get("pid") or 0)
        text, method = self.capture(progress)
        self.monitor.event(
            wire.Kind.STACKS,
            text,
            pid=pid,
            method=method,
            step=step,
            stalled_for=round(quiet, 3),
            threshold=round(threshold, 3),
        )
        return True

    def capture(self, progress: dict) -> tuple[str, str]:
        pid = int(progress.get("pid") or 0)
        py_spy = shutil.which("py-spy")
        if py_spy and pid:
            try:
                out = subprocess.run(
                    [py_spy, "dump", "--pid", str(pid)], capture_output=True, text=True, timeout=20
                )
                if out.returncode == 0 and out.stdout.strip():
                    return out.stdout[-MAX_STACKS:], "py-spy"
                log.warn_once("py-spy", f"{self.name}: py-spy dump failed: {out.stderr.strip()[:200]}")
            except (OSError, subprocess.TimeoutExpired) as exc:
                log.warn_once("py-spy", f"{self.name}: py-spy dump failed: {exc}")
        sig, path = progress.get("stack_signal"), progress.get("stack_file")
        if not (pid and sig and path):
            return "(no stacks: py-spy is not installed and the process registered no stack signal)", "none"
        path = Path(path)
        start = path.stat().st_size if path.exists() else 0
        try:
            os.kill(pid, int(sig))
        except OSError as exc:
            return f"(no stacks: cannot signal pid {pid}: {exc})", "none"
        # faulthandler writes from the signal handler at once; wait a moment for the text to land.
        deadline = time.monotonic() + 3.0
        size, steady = start, 0
        while time.monotonic() < deadline and steady < 3:
            time.sleep(0.05)
            try:
                now_size = path.stat().st_size
            except OSError:
                continue
            steady = steady + 1 if now_size == size and size > start else 0
            size = now_size
        text = ""
        try:
            with open(path, "rb") as fh:
                fh.seek(start)
                text = fh.read(MAX_STACKS).decode("utf-8", "replace")
        except OSError:
            pass
        return (text or "(the process did not write its stacks)"), "faulthandler"

    def _run(self) -> None:
        while not self._stop.wait(self.check_every):
            try:
                self.check()
            except Exception as exc:
                log.warn_once("stall", f"{self.name}: {type(exc).__name__}: {exc}")
