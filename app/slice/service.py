"""The slice's data: host × step-bucket matrices of step time and input wait from the step rollups
(every host's every step, whatever raw rows were kept), percentile bands over hosts, the hosts as a
sorted, paged table, and HBM and duty cycle as distributions over chips.

Reads stay bounded for any run: the rollup level is the finest whose buckets over the range fit
``columns``, so a 1,024-host job reads at most ``1,024 x (columns + 1)`` rollup rows.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.bounds import clamp_steps
from tpuwatch.server.models import LEVEL_WIDTHS, Job, JobHost, Metric
from tpuwatch.server.slice.hosts import host_stats
from tpuwatch.server.slice.schemas import HostPage, HostStat, SliceData
from tpuwatch.wire import MetricName

SLICE_HOSTS = 16  # past this many hosts the job page draws the slice, not one line per host
COLUMNS = 32
CHIP_WINDOW_S = 30.0  # a chip's latest sample within this long of the job's newest one
SORTS = ("step_time", "input_wait", "vs_median", "last_step", "last_seen_at", "host_index")


def is_slice(hosts: int) -> bool:
    return hosts > SLICE_HOSTS


def pick_level(span: int, columns: int) -> int:
    """The finest rollup level whose buckets over ``span`` steps fit ``columns``.

    >>> pick_level(500, 48), pick_level(86_400, 48), pick_level(10**9, 48)
    (0, 2, 3)
    """
    for level, width in enumerate(LEVEL_WIDTHS):
        if span / width <= columns:
            return level
    return len(LEVEL_WIDTHS) - 1


def slice_data(
    session: Session, job: Job, columns: int = COLUMNS, start: int | None = None, end: int | None = None
) -> SliceData:
    """Matrices over hosts × buckets for steps ``start``..``end`` (default: the whole run)."""
    hosts = list(
        session.scalars(
            select(JobHost.host_index).where(JobHost.job_id == job.id).order_by(JobHost.host_index)
        )
    )
    lo, hi = (int(v) for v in clamp_steps(start, end, job.last_step))  # what the job holds, no more
    level = pick_level(max(1, hi - lo + 1), columns)
    if level and (hi - lo + 1) / LEVEL_WIDTHS[level] < columns / 4:
        level -= 1  # a handful of wide columns shows nothing: the latest finer ones instead
    width = LEVEL_WIDTHS[level]
    lo -= lo % width
    last = lo + (hi - lo) // width * width if hi >= lo else lo - width
    buckets = list(range(max(lo, last - columns * width), last + 1, width))  # the latest columns + 1
    hbm, duty = _chips(session, job.id)
    if not hosts or job.last_step is None or not buckets:
        bands: dict = {"p50": [], "p90": [], "max": []}
        return SliceData(
            job_id=job.id,
            hosts=hosts,
            steps=[],
            bucket_steps=width,
            step_time=[],
            input_wait=[],
            bands=bands,
            hbm=hbm,
            duty=duty,
        )
    rows = _fetch(
        session,
        "SELECT host_index, bucket, n, sum_duration, sum_wait FROM step_rollups WHERE job_id = {m} "
        "AND level = {m} AND host_index IN ({hosts}) AND bucket BETWEEN {m} AND {m}",
        [job.id, level, *hosts, buckets[0], buckets[-1]],
        len(hosts),
    )
    time = np.full((len(hosts), len(buckets)), np.nan)
    wait = np.full_like(time, np.nan)
    if rows:
        a = np.array(rows, dtype=np.float64)
        r = np.searchsorted(np.array(hosts), a[:, 0])  # hosts are in ascending order
        c = ((a[:, 1] - buckets[0]) // width).astype(int)
        time[r, c] = a[:, 3] / a[:, 2]
        wait[r, c] = a[:, 4] / a[:, 2]
    return SliceData(
        job_id=job.id,
        hosts=hosts,
        steps=buckets,
        bucket_steps=width,
        step_time=_rows(time),
        input_wait=_rows(wait),
        bands=_bands(time),
        hbm=hbm,
        duty=duty,
    )


def _fetch(session: Session, sql: str, params: list, n_hosts: int = 0) -> list[tuple]:
    """Plain tuples from the DB-API cursor of this session's connection: 60,000 rows as SQLAlchemy
    rows cost more than the rest of the request. ``{m}`` is a parameter, ``{hosts}`` n of them."""
    conn = session.connection()
    m = "?" if conn.dialect.name == "sqlite" else "%s"
    cursor = conn.connection.cursor()
    try:
        cursor.execute(sql.format(m=m, hosts=", ".join([m] * n_hosts)), params)
        return cursor.fetchall()
    finally:
        cursor.close()


def _bands(m: np.ndarray) -> dict[str, list[float | None]]:
    out = {}
    seen = ~np.all(np.isnan(m), axis=0)
    for name, q in (("p50", 50), ("p90", 90), ("max", 100)):
        v = np.full(m.shape[1], np.nan)
        if seen.any():
            v[seen] = np.nanpercentile(m[:, seen], q, axis=0)
        out[name] = _row(v)
    return out


def _row(v: np.ndarray) -> list[float | None]:
    return _rows(v[None, :])[0]


def _rows(m: np.ndarray) -> list[list[float | None]]:
    # Microseconds are plenty for a colour or a band, and keep 1,024 x 32 cells small on the wire.
    r = np.round(m, 6).astype(object)
    r[np.isnan(m)] = None
    return r.tolist()


def _chips(session: Session, job_id: int) -> tuple[list[float], list[float]]:
    """The latest HBM share and duty cycle of every (host, chip) near the job's newest sample."""
    used, total, duty = MetricName.HBM_USED, MetricName.HBM_TOTAL, MetricName.DUTY_CYCLE
    conn = session.connection()
    latest: dict[str, dict[tuple, float]] = {}
    for name in (used, total, duty):
        top = conn.execute(
            select(func.max(Metric.ts)).where(Metric.job_id == job_id, Metric.name == name)
        ).scalar()
        if top is None:
            continue
        rows = _fetch(
            session,
            "SELECT host_index, chip, value FROM metrics "
            "WHERE job_id = {m} AND name = {m} AND ts > {m} ORDER BY ts",
            [job_id, name, top - CHIP_WINDOW_S],
        )
        latest[name] = {(h, c): v for h, c, v in rows if v is not None}  # the newest sample wins
    shares = [v / latest[total][k] for k, v in latest.get(used, {}).items() if latest.get(total, {}).get(k)]
    return [float(f"{x:.4g}") for x in shares], [float(f"{x:.4g}") for x in latest.get(duty, {}).values()]


def host_page(
    session: Session,
    job: Job,
    sort: str = "step_time",
    order: str = "desc",
    page: int = 1,
    per_page: int = 25,
    stats: list[HostStat] | None = None,
) -> HostPage:
    """One page of the job's hosts sorted by ``sort`` (one of ``SORTS``); hosts without the value last."""
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {', '.join(SORTS)}")
    if order not in ("asc", "desc"):
        raise ValueError("order must be asc or desc")
    stats = host_stats(session, job) if stats is None else stats
    have = [s for s in stats if getattr(s, sort) is not None]
    have.sort(key=lambda s: (getattr(s, sort), s.host_index), reverse=order == "desc")
    ranked = have + [s for s in stats if getattr(s, sort) is None]
    first = (page - 1) * per_page
    return HostPage(
        total=len(ranked),
        page=page,
        per_page=per_page,
        sort=sort,
        order=order,
        rows=ranked[first : first + per_page],
    )
