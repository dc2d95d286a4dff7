"""Reading the stored rounds: one packed row per host per round (app/models/device.py), unpacked
into values per series, host and chip. Every figure the pages, the API, ``/metrics``, the
post-mortem and the straggler rule show comes through ``host_value``.

>>> data = {"c": [0, 1], "s": {"duty": [40.0, 60.0], "rtt|p50": 80.0, "q": [None, 3]}}
>>> host_value(data, "duty"), host_value(data, "rtt|p50"), host_value(data, "q"), host_value(data, "x")
(50.0, 80.0, 3.0, None)
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.models import DeviceRound

MAX_ROWS = 6000  # rounds one view reads: 64 hosts x ~8 min at 5 s, 1,024 hosts x 30 s


@dataclass
class Round:
    host: int
    ts: float
    data: dict


def host_value(data: dict, series: str) -> float | None:
    """The round's value of ``series`` for the whole host: the mean over its chips."""
    value = data.get("s", {}).get(series)
    if isinstance(value, list):
        vals = [v for v in value if v is not None]
        return sum(vals) / len(vals) if vals else None
    return float(value) if value is not None else None


def chip_values(data: dict, series: str) -> dict[int, float]:
    value = data.get("s", {}).get(series)
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
    return {k for r in rounds for k in r.data.get("s", {})}
