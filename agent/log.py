"""The agent's own messages: one line on stderr, each distinct problem said once."""

from __future__ import annotations

import sys
import threading

PREFIX = "tpuwatch: "  # every line the agent prints starts so (the server's triage skips them)
_said: set[str] = set()
_lock = threading.Lock()


def warn(message: str) -> None:
    try:
        print(f"{PREFIX}{message}", file=sys.stderr, flush=True)
    except Exception:  # a closed stderr must not hurt training
        pass


def warn_once(key: str, message: str) -> None:
    with _lock:
        if key in _said:
            return
        _said.add(key)
    warn(message)
