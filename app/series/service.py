"""Chart series of a job: step time and input wait per host, from raw steps for a narrow window
and from rollups for a wide one, downsampled (MinMaxLTTB) to at most ``points`` per series.

A million-step run over 8 hosts is 8 million raw rows: reading them per request cannot answer in
time, so a wide view reads the finest rollup level whose buckets fit a budget of rows instead.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.bounds import clamp_steps
from tpuwatch.server.models import LEVEL_WIDTHS, Job, JobHost, Step, StepRollup
from tpuwatch.server.series.downsample import downsample
from tpuwatch.server.series.schemas import Series, StepSeries


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
    start, end = clamp_steps(start, end, job.last_step)  # what the job holds, no more
    lo, hi = int(np.floor(start)), int(np.ceil(end))
    if hi < lo:
        return StepSeries(job_id=job.id, points=points, total_steps=job.steps, series=[])
    level = pick_level(hi - lo + 1, points, len(hosts))
    series: list[Series] = []
    source = "rollup"
    if level is None:
        # Hosts whose raw steps of this window are gone (pruned, or a slice's hosts past the
        # reference ones, which keep only deviating steps) draw from the finest rollups instead.
        series, thin = _raw_series(session, job.id, hosts, lo, hi, points)
        source = "raw" if not thin else "mixed" if series else "rollup"
        if thin:
            series += _rollup_series(session, job.id, thin, lo, hi, points, 0)
            series.sort(key=lambda s: s.host)
    else:
        series = _rollup_series(session, job.id, hosts, lo, hi, points, level)
    return StepSeries(
        job_id=job.id,
        points=points,
        total_steps=job.steps,
        series=series,
        source=source,
        bucket_steps=1 if source == "raw" else LEVEL_WIDTHS[level or 0],
    )


def _raw_series(session, job_id, hosts, lo, hi, points) -> tuple[list[Series], list[int]]:
    """Series of the hosts whose raw steps cover the window, and the hosts whose do not."""
    rows = (
        session.connection()
        .execute(
            select(Step.host_index, Step.step, Step.duration, Step.input_wait)
            .where(Step.job_id == job_id, Step.host_index.in_(hosts), Step.step.between(lo, hi))
            .order_by(Step.host_index, Step.step)
        )
        .all()
    )
    rolled = dict(
        session.execute(
            select(StepRollup.host_index, func.sum(StepRollup.n))
            .where(
                StepRollup.job_id == job_id,
                StepRollup.level == 0,
                StepRollup.host_index.in_(hosts),
                StepRollup.bucket.between(lo - lo % LEVEL_WIDTHS[0], hi),
            )
            .group_by(StepRollup.host_index)
        ).all()
    )
    out: list[Series] = []
    arr = _as_array(rows) if rows else np.zeros((0, 4))
    have = dict(_split_by_host(arr)) if rows else {}
    thin = []
    for h in hosts:
        n = int(rolled.get(h) or 0)
        part = have.get(h)
        count = 0 if part is None else len(part)
        # The edge buckets reach up to a bucket's width past the window on each side.
        if count < n - 2 * LEVEL_WIDTHS[0] or (n and not count):
            thin.append(h)
            continue
        if part is None:
            continue
        x = np.ascontiguousarray(part[:, 1])
        for col, name in ((2, "step_time"), (3, "input_wait")):
            y = np.ascontiguousarray(part[:, col])
            idx = downsample(x, y, points)
            out.append(Series(host=h, metric=name, x=x[idx].tolist(), y=y[idx].tolist()))
    return out, thin


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


def _as_array(rows) -> np.ndarray:
    # Plain tuples first: numpy probing SQLAlchemy Row objects costs ~20 µs a row.
    return np.array([tuple(r) for r in rows], dtype=np.float64)
