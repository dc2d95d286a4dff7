"""``init()``: a Monitor for this process, closed at exit, with the process's end recorded."""

from __future__ import annotations

import atexit
import sys
import traceback

from tpuwatch import wire
from tpuwatch.compiles import watch_jax
from tpuwatch.monitor import Monitor
from tpuwatch.progress import Progress
from tpuwatch.retracing import watch_tf


def init(job: str | None = None, **kwargs) -> Monitor:
    """Start recording this process's training job; see :class:`Monitor` for the options.

    Outside the sidecar, the job is marked finished when the process exits, and an uncaught
    exception is recorded as the job's error.
    """
    mon = Monitor(job, **kwargs)
    if not mon.under_sidecar:
        _install_exit_hooks(mon)
    else:
        # The sidecar watches for stalls through this file, and may ask for stacks by signal.
        mon.progress = Progress(mon.spool_dir)
        mon.progress.register_stacks()
    # JAX's own account of each compilation (no JAX import where the process has none); TF's
    # retracing warnings (the sidecar reads them from the output instead).
    mon.hooks.append(watch_jax(mon))
    if not mon.under_sidecar:
        mon.hooks.append(watch_tf(mon))
    atexit.register(mon.close)  # what is still queued reaches the spool even without close()
    return mon


def _install_exit_hooks(mon: Monitor) -> None:
    previous = sys.excepthook

    def excepthook(exc_type, exc, tb):
        if issubclass(exc_type, KeyboardInterrupt):
            mon.exit_code = 130
        else:
            mon.exit_code = 1
            text = "".join(traceback.format_exception(exc_type, exc, tb))
            mon.event(wire.Kind.ERROR, text.rstrip(), source="traceback")
        previous(exc_type, exc, tb)

    sys.excepthook = excepthook
    mon.report_exit = True
