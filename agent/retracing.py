"""TensorFlow's retracing warnings as compile events.

TensorFlow gives no listener for its traces, but warns when a ``tf.function`` traces again and
again, naming it: ``5 out of the last 5 calls to <function train_step at 0x7f...> triggered
tf.function retracing``. The sidecar reads the line from the job's output; a process recording
by itself (``tpuwatch.init()`` outside the sidecar) gets it from the ``tensorflow`` logger, which
this module listens to without importing TensorFlow. Example::

    >>> parse("WARNING:tensorflow:6 out of the last 7 calls to <function train_step at 0x7f01> "
    ...       "triggered tf.function retracing. Tracing is expensive ...")
    {'function': 'train_step', 'framework': 'tensorflow', 'retraces': 6, 'calls': 7, 'source': 'log'}
"""

from __future__ import annotations

import logging
import re

from tpuwatch import log, wire

MARK = "triggered tf.function retracing"
_LINE = re.compile(
    r"(\d+) out of the last (\d+) calls to <(?:function|bound method) ([^\s>]+)[^>]*> " + re.escape(MARK)
)


def parse(line: str) -> dict | None:
    """The event data of a retracing warning, or None for any other line."""
    if MARK not in line:
        return None
    m = _LINE.search(line)
    if m is None:
        return None
    name = m.group(3).replace(".<locals>.", ".")[:200]
    return {
        "function": name,
        "framework": "tensorflow",
        "retraces": int(m.group(1)),
        "calls": int(m.group(2)),
        "source": "log",
    }


def record(mon, line: str, step: int | None = None) -> bool:
    """Record ``line`` as a compile event if it is a retracing warning; True if it was."""
    data = parse(line)
    if data is None:
        return False
    if step is not None:
        data["step"] = step
    mon.event(wire.Kind.COMPILE, f"{data['function']} retraced ({data['retraces']} of the last "
              f"{data['calls']} calls)", **data)  # fmt: skip
    return True


class RetracingHandler(logging.Handler):
    """A handler on the ``tensorflow`` logger that records retracing warnings into ``mon``."""

    def __init__(self, mon) -> None:
        super().__init__(logging.WARNING)
        self.mon = mon

    def emit(self, record_: logging.LogRecord) -> None:
        try:
            message = record_.getMessage()
            if MARK in message:
                record(self.mon, message, step=self.mon._last_step + 1)
        except Exception as exc:  # never into TensorFlow's logging, and so never into training
            log.warn_once("tf-retracing", f"tf retracing handler: {type(exc).__name__}: {exc}")

    def detach(self) -> None:
        logging.getLogger("tensorflow").removeHandler(self)


def watch_tf(mon) -> RetracingHandler:
    """Listen to TensorFlow's logger (no import of TensorFlow: a logger is only a name)."""
    handler = RetracingHandler(mon)
    logging.getLogger("tensorflow").addHandler(handler)
    return handler
