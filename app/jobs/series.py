"""Chart series of a job: step time and input wait per host, from raw steps for a narrow window
and from rollups for a wide one, downsampled (MinMaxLTTB) to at most ``points`` per series; and
device metrics (HBM, duty cycle) per chip.

A million-step run over 8 hosts is 8 million raw rows: reading them per request cannot answer in
time, so a wide view reads the finest rollup level whose buckets fit a budget of rows instead.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.jobs.downsample import downsample
from app.jobs.models import LEVEL_WIDTHS, StepRollup
from app.jobs.schemas import Series, StepSeries
from app.models import Job, JobHost, Metric, Step

HBM_USED, HBM_TOTAL, DUTY = "tpu.hbm.used_bytes", "tpu.hbm.total_bytes", "tpu.duty_cycle_pct"
DEVICE_METRICS = (HBM_USED, HBM_TOTAL, DUTY)


def host_indexes(session: Session, job_id: int) -> list[int]:
    return list(
        session.scalars(
            select(JobHost.host_index).where(JobHost.job_id == job_id).order_by(JobHost.host_index)
        )
    )


ROW_BUDGET = 16_000  # rows one chart request may read, all hosts together


def pick_level(span: float, points: int, hosts: int = 1) -> int | None:
    """None for raw steps when ``span`` steps per host fit the budget; else the finest rollup level
    whose buckets over the span fit it (the coarsest when none does). The budget per host is
    ``points`` rows, or more when few hosts leave room in ``ROW_BUDGET``.

    >>> pick_level(1_000_000, 2000, hosts=8), pick_level(1500, 2000, hosts=8)
    (2, None)
    """
    budget = max(points, ROW_BUDGET // max(1, hosts))
    if span <= budget:
        return None
    for level, width in enumerate(LEVEL_WIDTHS):
        if span / width <= budget:
            return level
    return len(LEVEL_WIDTHS) - 1


def step_series(
    session: Session,
    job: Job,
    points: int = 2000,
    start: float | None = None,
    end: float | None = None,
    host: int | None = None,
) -> StepSeries:
    """Step time and input wait per host, each at most ``points`` points.

    ``start``/``end`` are step numbers: a zoomed chart asks again for its window.

    >>> # step_series(session, job, points=500, start=1000, end=2000).series[0].metric
    """
    hosts = [host] if host is not None else host_indexes(session, job.id)
    if job.last_step is None or not hosts:
        return StepSeries(job_id=job.id, points=points, total_steps=job.steps, series=[])
    lo = max(0, int(np.floor(start))) if start is not None else 0
    hi = int(np.ceil(end)) if end is not None else int(job.last_step)
    if hi < lo:
        return StepSeries(job_id=job.id, points=points, total_steps=job.steps, series=[])
    level = pick_level(hi - lo + 1, points, len(hosts))
    series: list[Series] | None = None
    if level is None:
        series = _raw_series(session, job.id, hosts, lo, hi, points)
        if series is None:  # raw steps of this window were pruned: the finest rollups still hold it
            level = 0
    if series is None:
        series = _rollup_series(session, job.id, hosts, lo, hi, points, level)
    return StepSeries(
        job_id=job.id,
        points=points,
        total_steps=job.steps,
        series=series,
        source="raw" if level is None else "rollup",
        bucket_steps=1 if level is None else LEVEL_WIDTHS[level],
    )


def _raw_series(session, job_id, hosts, lo, hi, points) -> list[Series] | None:
    rows = (
        session.connection()
        .execute(
            select(Step.host_index, Step.step, Step.duration, Step.input_wait)
            .where(Step.job_id == job_id, Step.host_index.in_(hosts), Step.step.between(lo, hi))
            .order_by(Step.host_index, Step.step)
        )
        .all()
    )
    rolled = session.scalar(
        select(func.coalesce(func.sum(StepRollup.n), 0)).where(
            StepRollup.job_id == job_id,
            StepRollup.level == 0,
            StepRollup.host_index.in_(hosts),
            StepRollup.bucket.between(lo - lo % LEVEL_WIDTHS[0], hi),
        )
    )
    # The edge buckets reach up to a bucket's width past the window on each side.
    if len(rows) < rolled - 2 * LEVEL_WIDTHS[0] * len(hosts) or (rolled and not rows):
        return None
    out: list[Series] = []
    if not rows:
        return out
    arr = _as_array(rows)
    for h, part in _split_by_host(arr):
        x = np.ascontiguousarray(part[:, 1])
        for col, name in ((2, "step_time"), (3, "input_wait")):
            y = np.ascontiguousarray(part[:, col])
            idx = downsample(x, y, points)
            out.append(Series(host=h, metric=name, x=x[idx].tolist(), y=y[idx].tolist()))
    return out


def _rollup_series(session, job_id, hosts, lo, hi, points, level) -> list[Series]:
    width = LEVEL_WIDTHS[level]
    r = StepRollup
    rows = (
        session.connection()
        .execute(
            select(
                r.host_index,
                r.bucket,
                r.n,
                r.min_step,
                r.min_duration,
                r.max_step,
                r.max_duration,
                r.sum_wait,
                r.max_wait_step,
                r.max_wait,
            )
            .where(
                r.job_id == job_id,
                r.level == level,
                r.host_index.in_(hosts),
                r.bucket.between(lo - lo % width, hi),
            )
            .order_by(r.host_index, r.bucket)
        )
        .all()
    )
    out: list[Series] = []
    if not rows:
        return out
    arr = _as_array(rows)
    for h, p in _split_by_host(arr):
        # Each bucket gives its fastest and slowest step where they happened (min/max kept)...
        x = np.concatenate([p[:, 3], p[:, 5]])
        y = np.concatenate([p[:, 4], p[:, 6]])
        out.append(_series(h, "step_time", x, y, points))
        # ...and for input wait its mean (mid-bucket) and its worst step, the stalls worth seeing.
        mid = p[:, 1] + (width - 1) / 2
        x = np.concatenate([mid, p[:, 8]])
        y = np.concatenate([p[:, 7] / p[:, 2], p[:, 9]])
        out.append(_series(h, "input_wait", x, y, points))
    return out


def _series(host: int, metric: str, x: np.ndarray, y: np.ndarray, points: int) -> Series:
    order = np.argsort(x, kind="stable")
    x, y = np.ascontiguousarray(x[order]), np.ascontiguousarray(y[order])
    keep = np.concatenate([[True], np.diff(x) > 0])  # a one-step bucket gives the same point twice
    x, y = np.ascontiguousarray(x[keep]), np.ascontiguousarray(y[keep])
    idx = downsample(x, y, points)
    return Series(host=host, metric=metric, x=x[idx].tolist(), y=y[idx].tolist())


def _split_by_host(arr: np.ndarray):
    hosts, first = np.unique(arr[:, 0], return_index=True)
    bounds = [*first.tolist(), len(arr)]
    for i, h in enumerate(hosts):
        yield int(h), arr[bounds[i] : bounds[i + 1]]


def device_series(
    session: Session, job_id: int, since: float | None = None, points: int = 1000
) -> dict[str, list[Series]]:
    """HBM use (share of the chip's total when known, else GiB) and duty cycle (%), one series per
    (host, chip), x in UNIX seconds, downsampled per series. Keys: "hbm", "duty", "hbm_unit"."""
    q = select(Metric.host_index, Metric.chip, Metric.name, Metric.ts, Metric.value).where(
        Metric.job_id == job_id, Metric.name.in_(DEVICE_METRICS), Metric.value.is_not(None)
    )
    if since is not None:
        q = q.where(Metric.ts >= since)
    rows = (
        session.connection().execute(q.order_by(Metric.name, Metric.host_index, Metric.chip, Metric.ts)).all()
    )
    groups: dict[tuple, list[tuple[float, float]]] = {}
    for host, chip, name, ts, value in rows:
        groups.setdefault((name, host, chip if chip is not None else -1), []).append((ts, value))
    totals = {(h, c): max(v for _, v in pts) for (n, h, c), pts in groups.items() if n == HBM_TOTAL}
    hbm: list[Series] = []
    duty: list[Series] = []
    as_share = bool(totals)
    for (name, h, c), pts in groups.items():
        if name == HBM_TOTAL:
            continue
        arr = np.array(pts, dtype=np.float64)
        x, y = np.ascontiguousarray(arr[:, 0]), np.ascontiguousarray(arr[:, 1])
        if name == HBM_USED:
            total = totals.get((h, c))
            if as_share and not total:
                continue
            y = np.ascontiguousarray(y / total * 100 if as_share else y / 2**30)
        idx = downsample(x, y, points)
        s = Series(host=h, metric=f"chip {c}" if c >= 0 else "device", x=x[idx].tolist(), y=y[idx].tolist())
        (hbm if name == HBM_USED else duty).append(s)
    return {"hbm": hbm, "duty": duty, "hbm_unit": "% of HBM" if as_share else "GiB"}


def _as_array(rows) -> np.ndarray:
    # Plain tuples first: numpy probing SQLAlchemy Row objects costs ~20 µs a row.
    return np.array([tuple(r) for r in rows], dtype=np.float64)
