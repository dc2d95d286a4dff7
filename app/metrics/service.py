"""A job's metric samples: raw per host and chip for the API, and the device series (HBM, duty
cycle per chip) the job page draws, downsampled."""

from __future__ import annotations

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.metrics.schemas import MetricList, MetricSeries
from tpuwatch.server.models import Job, Metric
from tpuwatch.server.series.buckets import RAW_LIMIT, band, bucket_rows
from tpuwatch.server.series.downsample import downsample
from tpuwatch.server.series.schemas import Series
from tpuwatch.wire import MetricName

HBM_USED, HBM_TOTAL, DUTY = MetricName.HBM_USED, MetricName.HBM_TOTAL, MetricName.DUTY_CYCLE


def metric_series(
    session: Session,
    job: Job,
    name: str | None = None,
    host: int | None = None,
    chip: int | None = None,
    since: float | None = None,
    limit: int = 20000,
) -> MetricList:
    """Every sample of metric ``name`` per (host, chip), oldest first, at most ``limit`` samples;
    without ``name``, only the names the job has."""
    names = sorted(session.scalars(select(Metric.name).where(Metric.job_id == job.id).distinct()))
    series: list[MetricSeries] = []
    truncated = False
    if name:
        q = select(Metric.host_index, Metric.chip, Metric.ts, Metric.value).where(
            Metric.job_id == job.id, Metric.name == name
        )
        if host is not None:
            q = q.where(Metric.host_index == host)
        if chip is not None:
            q = q.where(Metric.chip == chip)
        if since is not None:
            q = q.where(Metric.ts >= since)
        rows = session.execute(q.order_by(Metric.ts, Metric.id).limit(limit + 1)).all()
        truncated = len(rows) > limit
        groups: dict[tuple, MetricSeries] = {}
        for h, c, ts, value in rows[:limit]:
            s = groups.get((h, c))
            if s is None:
                s = groups[(h, c)] = MetricSeries(host=h, chip=c, ts=[], value=[])
            s.ts.append(ts)
            s.value.append(value)
        series = [groups[k] for k in sorted(groups, key=lambda k: (k[0], -1 if k[1] is None else k[1]))]
    return MetricList(job_id=job.id, name=name, names=names, series=series, truncated=truncated)


def device_series(
    session: Session, job_id: int, since: float | None = None, points: int = 1000
) -> dict[str, list[Series]]:
    """HBM use (share of the chip's total when known, else GiB) and duty cycle (%), one series per
    (host, chip), x in UNIX seconds, downsampled per series. Keys: "hbm", "duty", "hbm_unit".

    A long run's series (more than ``RAW_LIMIT`` samples) are read as buckets (series/buckets.py)."""
    where = [Metric.job_id == job_id, Metric.name.in_(MetricName.DEVICE), Metric.value.is_not(None)]
    if since is not None:
        where.append(Metric.ts >= since)
    keys = [Metric.name, Metric.host_index, Metric.chip]
    # One pass over the samples, bucketed by time: each series' count, the chips' HBM totals, and
    # the band a long series is drawn as.
    start, seen = session.execute(select(Job.started_at, Job.last_seen_at).where(Job.id == job_id)).one()
    lo = max(float(start), since) if since is not None else float(start)
    scan = bucket_rows(session, where, Metric.ts, lo, max(float(seen), lo + 1), keys)
    totals = {
        (h, c if c is not None else -1): max(r[4] for r in rows)
        for (name, h, c), rows in scan.items()
        if name == HBM_TOTAL
    }
    counts = {k: sum(r[5] for r in rows) for k, rows in scan.items() if k[0] != HBM_TOTAL}
    small = {k for k, n in counts.items() if n <= RAW_LIMIT}
    lines: dict[tuple, tuple[np.ndarray, np.ndarray]] = {k: band(scan[k]) for k in counts if k not in small}
    if small:
        q = select(*keys, Metric.ts, Metric.value).where(*where, Metric.name.in_({k[0] for k in small}))
        raw: dict[tuple, list] = {}
        for name, host, chip, ts, value in session.connection().execute(q.order_by(*keys, Metric.ts)):
            if (name, host, chip) in small:
                raw.setdefault((name, host, chip), []).append((ts, value))
        for key, pts in raw.items():
            arr = np.array(pts, dtype=np.float64)
            lines[key] = (np.ascontiguousarray(arr[:, 0]), np.ascontiguousarray(arr[:, 1]))
    hbm: list[Series] = []
    duty: list[Series] = []
    as_share = bool(totals)
    for name, h, c in sorted(lines, key=lambda k: (k[0], k[1], -1 if k[2] is None else k[2])):
        x, y = lines[(name, h, c)]
        c = c if c is not None else -1
        if name == HBM_USED:
            total = totals.get((h, c))
            if as_share and not total:
                continue
            y = np.ascontiguousarray(y / total * 100 if as_share else y / 2**30)
        idx = downsample(x, y, points)
        s = Series(host=h, metric=f"chip {c}" if c >= 0 else "device", x=x[idx].tolist(), y=y[idx].tolist())
        (hbm if name == HBM_USED else duty).append(s)
    return {"hbm": hbm, "duty": duty, "hbm_unit": "% of HBM" if as_share else "GiB"}
