"""Ingest's side of the device domain: ``device`` events become packed rows of ``device_rounds``.

A round that is not shaped as the agent packs it (agent/sources/device_round.py) is stored as the
event it came as: nothing sent is lost, and nothing malformed reaches the charts.

>>> ok = [1.7e9, "device", "", {"c": [0, 1], "s": {"a": [1.0, None], "b": 2.0},
...                               "d": {"h": [1.0, 2.0, 3.0, 4.0, 2.0], "k": [[1, 2, 3, 4, 2], None]}}]
>>> bad = [1.7e9, "device", "", {"c": "x"}]
>>> short = [1.7e9, "device", "", {"c": [0], "s": {}, "d": {"h": [1.0, 2.0]}}]
>>> others, rounds = split_rounds([ok, bad, short, [1.7e9, "exit", "", None]])
>>> [e[1] for e in others], len(rounds)
(['device', 'device', 'exit'], 1)
"""

from __future__ import annotations

import time

from sqlalchemy import delete, insert
from sqlalchemy.orm import Session

from tpuwatch.server.models import DeviceRound
from tpuwatch.wire import DEVICE_STATS as STATS
from tpuwatch.wire import Kind

MAX_CHIPS = 256
MAX_SERIES = 2000


def well_formed(data) -> bool:
    if not isinstance(data, dict):
        return False
    if not isinstance(data.get("c"), list) or not isinstance(data.get("s"), dict):
        return False
    chips = data["c"]
    if len(chips) > MAX_CHIPS or not all(isinstance(c, int) and not isinstance(c, bool) for c in chips):
        return False
    if len(data["s"]) > MAX_SERIES:
        return False
    for value in data["s"].values():
        if isinstance(value, list):
            if len(value) != len(chips) or not all(_number(v) or v is None for v in value):
                return False
        elif not _number(value):
            return False
    dists = data.get("d", {})
    if not isinstance(dists, dict) or len(dists) > MAX_SERIES:
        return False
    for value in dists.values():
        if per_chip(value):
            if len(value) != len(chips) or not all(_stats(row) for row in value):
                return False
        elif not _stats(value):
            return False
    return True


def per_chip(value) -> bool:
    """A distribution's entry is by chip (a list of lists) rather than host-wide (one list)."""
    return isinstance(value, list) and any(isinstance(v, list) for v in value)


def _stats(row) -> bool:
    return row is None or (
        isinstance(row, list) and len(row) == len(STATS) and all(_number(v) or v is None for v in row)
    )


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def split_rounds(events: list) -> tuple[list, list]:
    """``(other events, rounds)``: the well-formed ``device`` events taken out as rounds."""
    if not any(e[1] == Kind.DEVICE for e in events):
        return events, []
    others, rounds = [], []
    for e in events:
        if e[1] == Kind.DEVICE and well_formed(e[3]):
            rounds.append(e)
        else:
            others.append(e)
    return others, rounds


def _packed(data: dict) -> dict:
    out = {"c": data["c"], "s": data["s"]}
    if data.get("d"):
        out["d"] = data["d"]
    return out


def store_rounds(session: Session, job_id: int, host: int, rounds: list) -> None:
    """A round or two per batch (one every 5 s): a plain INSERT, the JSON column does the rest."""
    if rounds:
        rows = [{"job_id": job_id, "host_index": host, "ts": e[0], "data": _packed(e[3])} for e in rounds]
        session.execute(insert(DeviceRound), rows)


def prune(session: Session, older_than_days: float, now: float | None = None) -> int:
    """Delete rounds older than ``older_than_days`` (``tpuwatch db prune``): the device's raw data,
    kept as long as raw steps. Returns the rows deleted."""
    cutoff = (time.time() if now is None else now) - older_than_days * 86400
    return session.execute(delete(DeviceRound).where(DeviceRound.ts < cutoff)).rowcount or 0
