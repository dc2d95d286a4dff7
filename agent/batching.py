"""How a host's records become batches and its batches requests, with no I/O: the rows of a batch,
its bytes, when the open spool segment closes (each closed segment goes out as one request), how
a segment's batches merge into one request and how a request the server found too large splits.

``Monitor`` calls these from its writer thread; the benchmarks' host emulator (bench/emulator.py)
calls the same ones for thousands of emulated hosts, so that their traffic is the agent's.
"""

from __future__ import annotations

import json
from collections import deque

from tpuwatch import wire

MAX_S = wire.MAX_DURATION_S
HOLD_S = 30.0  # the longest a due segment stays open for a sender that is behind
ROW_KEYS = ("steps", "events", "metrics", "logs")  # a batch's rows, in the order ``records`` counts them


def step_rows(queue: deque, limit: int, offset: float) -> list:
    """Up to ``limit`` queued steps ``(n, perf_counter end, duration, input wait)`` as a batch's
    rows: the end in wall-clock seconds (``offset`` added), durations capped to the wire's bound.

    >>> step_rows(deque([(1, 10.0, 0.5, 0.0), (2, 10.5, 0.5, 0.01)]), 1, 1.7e9)
    [(1, 1700000010.0, 0.5, 0.0)]
    """
    pop = queue.popleft
    rows = []
    for _ in range(min(len(queue), limit)):
        n, t, d, w = pop()
        rows.append((n, round(t + offset, 6), round(min(d, MAX_S), 7), round(min(w, MAX_S), 7)))
    return rows


def encode(batch: dict) -> bytes:
    """A batch as the spool keeps it and the server reads it: compact JSON."""
    return json.dumps(batch, separators=(",", ":"), default=str).encode()


def closes_now(now: float, due: float, behind) -> bool:
    """Whether the open spool segment closes now (and goes out as one request): once it is due,
    unless the sender still awaits an answer (``behind()``), and then at most ``HOLD_S`` past due.

    >>> closes_now(10.0, 9.0, lambda: False), closes_now(10.0, 9.0, lambda: True)
    (True, False)
    >>> closes_now(40.0, 9.0, lambda: True), closes_now(8.0, 9.0, lambda: False)
    (True, False)
    """
    return now >= due and (now > due + HOLD_S or not behind())


def merge_batches(payloads: list[bytes]) -> bytes | None:
    """Consecutive batches of one stream as one batch: their rows in order, under the first one's
    ``seq``, the stream's running count of dropped events as of the last. ``records`` lists each
    batch's key and row counts ``[seq, steps, events, metrics, logs]``: the server claims every
    batch's key and stores the rows of those it did not have, so a batch already stored alone (or
    in another run of the segment) is never stored twice, however the segment was cut into runs.
    None when they do not belong together.

    >>> a = b'{"stream":"s","seq":4,"run":{},"sent_at":1.0,"steps":[[1]],"events":[],"dropped":0}'
    >>> b = b'{"stream":"s","seq":5,"run":{},"sent_at":2.0,"steps":[[2]],"events":[],"dropped":3}'
    >>> m = json.loads(merge_batches([a, b]))
    >>> m["seq"], m["steps"], m["dropped"], m["records"]
    (4, [[1], [2]], 3, [[4, 1, 0, 0, 0], [5, 1, 0, 0, 0]])
    """
    if len(payloads) == 1:
        return payloads[0]
    try:
        batches = [json.loads(p) for p in payloads]
    except ValueError:
        return None
    first = batches[0]
    if not all(
        isinstance(b, dict)
        and b.get("stream") == first.get("stream")
        and b.get("run") == first.get("run")
        and not b.get("part")
        and "records" not in b
        for b in batches
    ):
        return None
    merged = dict(first)
    for key in ROW_KEYS:
        rows = [row for b in batches for row in b.get(key) or ()]
        if rows or key in first:
            merged[key] = rows
    for key in ("dropped", "sent_at"):  # the stream's running count; the latest send time
        values = [b[key] for b in batches if isinstance(b.get(key), (int, float))]
        if values:
            merged[key] = max(values)
    merged["records"] = [[b.get("seq")] + [len(b.get(k) or ()) for k in ROW_KEYS] for b in batches]
    return json.dumps(merged, separators=(",", ":")).encode()


def split_batch(payload: bytes) -> list[tuple[bytes, int]] | None:
    """A batch the server found too large as two smaller ones (with their event counts). A merged
    batch splits between its batches (each half a merged batch, or a batch, of its own keys); one
    batch splits its rows into two parts that keep its ``seq`` and differ in ``part``."""
    batch = json.loads(payload)
    records = batch.pop("records", None)
    if records and len(records) > 1:
        return [
            _records_half(batch, records, half)
            for half in (slice(None, len(records) // 2), slice(len(records) // 2, None))
        ]
    if records:
        batch["seq"] = records[0][0]
    items = [(k, x) for k in ("steps", "events", "metrics") for x in batch.get(k) or ()]
    if len(items) < 2:
        return None
    mid = len(items) // 2
    out = []
    for suffix, chunk in (("0", items[:mid]), ("1", items[mid:])):
        half = {k: v for k, v in batch.items() if k not in ("steps", "events", "metrics")}
        half["part"] = batch.get("part", "") + suffix
        for key in ("steps", "events", "metrics"):
            half[key] = [x for k, x in chunk if k == key]
        out.append((json.dumps(half, separators=(",", ":")).encode(), len(chunk)))
    return out


def _records_half(batch: dict, records: list, half: slice) -> tuple[bytes, int]:
    """The rows of ``records[half]`` of a merged batch, as a batch of their keys."""
    starts = {k: 0 for k in ROW_KEYS}
    for record in records[: half.start or 0]:
        for k, n in zip(ROW_KEYS, record[1:], strict=False):
            starts[k] += n
    mine = records[half]
    out = dict(batch, seq=mine[0][0])
    for i, k in enumerate(ROW_KEYS, start=1):
        if k in batch:
            out[k] = batch[k][starts[k] : starts[k] + sum(r[i] for r in mine)]
    if len(mine) > 1:
        out["records"] = mine
    return json.dumps(out, separators=(",", ":")).encode(), sum(sum(r[1:]) for r in mine)
