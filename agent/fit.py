"""Keeps what the agent sends within the bounds the server enforces (``tpuwatch.wire``).

The server refuses a whole batch when one field is past its bound, so a 40 MB progress-bar line in
an error's context would cost every step that travels with it. The writer thread (never the
training thread) passes each event through ``fit_event`` on its way into the spool: long texts are
cut with a note, NUL becomes U+FFFD, NaN and infinities become text, and data that is still too
large is replaced by a note of its size.

>>> fit_event((1.0, "note", "a\\x00b", {"loss": float("nan")}))
(1.0, 'note', 'a\\ufffdb', {'loss': 'NaN'})
"""

from __future__ import annotations

import json
import math
from typing import Any

from tpuwatch import log, wire


def fit_name(text: Any, limit: int) -> str:
    """A name (job, run id, kind, metric) cut to ``limit`` characters, NUL replaced."""
    return str(text).replace("\x00", "\ufffd")[:limit]


def fit_text(text: Any, limit: int) -> str:
    """A text cut to ``limit`` characters with a note saying how much went, NUL replaced."""
    text = str(text).replace("\x00", "\ufffd")
    if len(text) <= limit:
        return text
    keep = max(0, limit - 64)
    return text[:keep] + f"\n… [tpuwatch: {len(text) - keep} characters cut]"[: limit - keep]


def _clean(value: Any, cap: int | None) -> Any:
    if isinstance(value, str):
        value = value.replace("\x00", "\ufffd")
        return value if cap is None or len(value) <= cap else value[:cap] + "…"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if value != value else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {_clean(str(k), 200): _clean(v, cap) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v, cap) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return _clean(str(value), cap)


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def fit_json(value: dict | None, limit: int) -> dict | None:
    """``value`` as JSON the server accepts in at most ``limit`` bytes; long strings are cut first."""
    if value is None:
        return None
    cap = None
    try:
        while True:
            fitted = _clean(value, cap)
            size = _size(fitted)
            if size <= limit:
                return fitted
            if cap is not None and cap <= 64:
                return {"tpuwatch_truncated": True, "bytes": size}
            cap = max(64, (cap or limit) // 2)
    except (TypeError, ValueError, RecursionError) as exc:  # cycles, odd keys: keep what it was
        return {"tpuwatch_truncated": True, "error": f"{type(exc).__name__}"}


def fit_event(event: tuple) -> tuple:
    ts, kind, message, data = event
    return (
        ts,
        fit_name(kind, 32) or "event",
        fit_text(message, wire.MAX_MESSAGE_CHARS),
        fit_json(data, wire.MAX_DATA_BYTES),
    )


def expand_logs(logs, out) -> None:
    """Turn ``Monitor.log()`` calls (``(ts, {name: value}, step)`` on ``logs``) into metric rows
    ``(ts, name, None, value, step)`` on ``out``; values that are no numbers are said once and left."""
    for _ in range(len(logs)):
        ts, values, step = logs.popleft()
        try:
            items = list(values.items())
        except Exception:  # not a dict: nothing to record, training goes on
            log.warn_once("log-values", f"log() takes a dict of numbers, not {type(values).__name__}")
            continue
        try:
            step = int(step) if step is not None and int(step) >= 0 else None
        except (TypeError, ValueError):
            step = None
        for name, value in items:
            try:
                out.append((ts, str(name), None, float(value), step))
            except (TypeError, ValueError):
                log.warn_once(f"log-{name}", f"log(): {name!r} is not a number; not recorded")
