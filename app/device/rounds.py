"""Reading the stored rounds: one packed row per host per round (app/models/device.py), unpacked
into values per series, host and chip. Every figure the pages, the API, ``/metrics``, the
post-mortem and the straggler rule show comes through ``host_value``.

A distribution's statistic is named ``name|p50`` (``|p90``, ``|p99``, ``|p999``, ``|mean``).

>>> data = {"c": [0, 1], "s": {"duty": [40.0, 60.0], "q": [None, 3]},
...         "d": {"rtt": [80.0, 90.0, 99.0, 120.0, 85.0], "hlo": [[1, 2, 3, 4, 2], [3, 4, 5, 6, 4]]}}
>>> host_value(data, "duty"), host_value(data, "q"), host_value(data, "x")
(50.0, 3.0, None)
>>> host_value(data, "rtt|p50"), host_value(data, "hlo|p90"), chip_values(data, "hlo|p50")
(80.0, 3.0, {0: 1, 1: 3})
>>> sorted(series_names([Round(0, 0.0, data)]))[:3]
['duty', 'hlo|mean', 'hlo|p50']
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.device.store import per_chip
from tpuwatch.server.models import DeviceRound
from tpuwatch.wire import DEVICE_STATS as STATS

SEP = "|"  # a distribution's name, then its statistic

MAX_ROWS = 6000  # rounds one view reads: 64 hosts x ~8 min at 5 s, 1,024 hosts x 30 s


@dataclass
class Round:
    host: int
    ts: float
    data: dict


def _raw(data: dict, series: str):
    """A gauge's value, or one statistic of a distribution: a number, or a list by chip."""
    if series in data.get("s", {}):
        return data["s"][series]
    name, sep, stat = series.rpartition(SEP)
    if not sep or stat not in STATS or name not in data.get("d", {}):
        return None
    at = STATS.index(stat)
    value = data["d"][name]
    if per_chip(value):
        return [v[at] if isinstance(v, list) and len(v) > at else None for v in value]
    return value[at] if isinstance(value, list) and len(value) > at else None


def host_value(data: dict, series: str) -> float | None:
    """The round's value of ``series`` for the whole host: the mean over its chips."""
    value = _raw(data, series)
    if isinstance(value, list):
        vals = [v for v in value if v is not None]
        return sum(vals) / len(vals) if vals else None
    return float(value) if value is not None else None


def chip_values(data: dict, series: str) -> dict[int, float]:
    value = _raw(data, series)
    if isinstance(value, list):
        return {c: v for c, v in zip(data.get("c", []), value, strict=False) if v is not None}
    return {}


def load(
    session: Session,
    job_id: int,
    until: float | None = None,
    window: float | None = None,
    max_rows: int = MAX_ROWS,
) -> list[Round]:
    """The job's newest rounds (at most ``max_rows``, within ``window`` seconds before ``until``
    when given), oldest first."""
    q = select(DeviceRound.host_index, DeviceRound.ts, DeviceRound.data).where(DeviceRound.job_id == job_id)
    if until is not None:
        q = q.where(DeviceRound.ts <= until)
        if window is not None:
            q = q.where(DeviceRound.ts >= until - window)
    rows = session.execute(q.order_by(DeviceRound.ts.desc()).limit(max_rows)).all()
    return [Round(h, ts, data) for h, ts, data in reversed(rows)]


def last_ts(session: Session, job_id: int) -> float | None:
    return session.scalar(
        select(DeviceRound.ts).where(DeviceRound.job_id == job_id).order_by(DeviceRound.ts.desc()).limit(1)
    )


def latest(rounds: list[Round]) -> dict[int, Round]:
    """Each host's newest round."""
    out: dict[int, Round] = {}
    for r in rounds:
        if r.host not in out or r.ts >= out[r.host].ts:
            out[r.host] = r
    return out


def series_names(rounds: list[Round]) -> set[str]:
    out = set()
    for r in rounds:
        out.update(r.data.get("s", {}))
        out.update(f"{name}{SEP}{stat}" for name in r.data.get("d", {}) for stat in STATS)
    return out
