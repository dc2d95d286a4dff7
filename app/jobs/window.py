"""The step-time percentiles of a job's window (``figures.py``): medians need the raw steps, so they
are computed once per new step of the job and kept, keyed by what changes when a step arrives; the
raw steps themselves are kept too and topped up with the new ones (``tail.py``).

A finished job's window never changes again: the overview's hundreds of finished jobs cost one read
each per server process, and a running job, on a refresh that saw new steps, the read of those.
"""

from __future__ import annotations

import statistics
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.jobs import tail
from tpuwatch.server.models import Job, JobHost, Step, StepRollup
from tpuwatch.server.series.thinning import FULL_STEP_HOSTS

WINDOW_STEPS = 2048  # a multiple of the finest rollup width (16): whole buckets
HOSTS_TABLE_MAX = 16  # per-host medians for jobs drawn host by host (a slice has its own table)
CACHE_SIZE = 4096


@dataclass(frozen=True)
class Percentiles:
    step_p50: float | None = None
    step_p90: float | None = None
    wait_p50: float | None = None
    host_p50: dict[int, float] = field(default_factory=dict)


def quantile(values: list[float], q: float) -> float | None:
    """The ``q`` quantile by linear interpolation between order statistics (numpy's default).

    >>> quantile([1.0, 2.0, 3.0, 4.0], 0.5), quantile([1.0, 2.0, 3.0, 4.0], 0.9)
    (2.5, 3.7)
    """
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


_cache: OrderedDict[tuple, Percentiles] = OrderedDict()
_lock = threading.Lock()


def _key(url: str, job: Job, hosts_too: bool) -> tuple:
    return (url, job.id, job.run_id, job.started_at, job.last_step, job.steps, job.last_step_at, hosts_too)


def percentiles(session: Session, jobs: list[Job], hosts_too: bool = False) -> dict[int, Percentiles]:
    """p50/p90 of step time and p50 of input wait over each job's window of its reference host's
    raw steps (the lowest host with steps: hosts of a synchronous job step together), in two
    queries for all the jobs not read since their last step; with ``hosts_too``, each host's
    median step time as well (jobs of up to 16 hosts: the hosts table)."""
    url = str(session.get_bind().url)
    out: dict[int, Percentiles] = {}
    missing = []
    with _lock:
        for job in jobs:
            hit = _cache.get(_key(url, job, hosts_too))
            if hit is None:
                missing.append(job)
            else:
                out[job.id] = hit
    if missing:
        found = _read(session, missing)
        if hosts_too:
            found = {i: _with_hosts(session, job, found[i]) for i, job in ((j.id, j) for j in missing)}
        out.update(found)
        with _lock:
            for job in missing:
                _cache[_key(url, job, hosts_too)] = found[job.id]
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    return out


def window_rows(session: Session, job: Job, host: int) -> list[tuple[int, float, float]]:
    """``(step, duration, wait)`` of ``host``'s raw steps in the window, oldest first, without the
    job's first step (compilation) when later steps exist."""
    lo = (job.last_step or 0) - WINDOW_STEPS
    rows = (
        session.connection()
        .execute(
            select(Step.step, Step.duration, Step.input_wait)
            .where(Step.job_id == job.id, Step.host_index == host, Step.step > lo)
            .order_by(Step.step)
        )
        .all()
    )
    return _without_compile([tuple(r) for r in rows])


def _without_compile(rows: list[tuple]) -> list[tuple]:
    return rows[1:] if rows and tail.is_compile(rows[0][0], len(rows)) else rows


def _read(session: Session, jobs: list[Job]) -> dict[int, Percentiles]:
    ids = [j.id for j in jobs]
    refs = dict(
        session.execute(
            select(JobHost.job_id, func.min(JobHost.host_index))
            .where(JobHost.job_id.in_(ids), JobHost.steps > 0)
            .group_by(JobHost.job_id)
        ).all()
    )
    rows = tail.windows(session, jobs, refs, WINDOW_STEPS)
    out = {}
    for job in jobs:
        steps, waits = rows.get(job.id, ([], []))
        out[job.id] = Percentiles(
            step_p50=statistics.median(steps) if steps else None,
            step_p90=quantile(steps, 0.9),
            wait_p50=statistics.median(waits) if waits else None,
            host_p50={refs[job.id]: statistics.median(steps)} if steps else {},
        )
    return out


def _with_hosts(session: Session, job: Job, found: Percentiles) -> Percentiles:
    """``found`` with every host's median step time (the hosts table of a job of up to 16)."""
    hosts = list(
        session.scalars(
            select(JobHost.host_index)
            .where(JobHost.job_id == job.id, JobHost.steps > 0)
            .order_by(JobHost.host_index)
        )
    )
    if len(hosts) > HOSTS_TABLE_MAX:
        return found
    per_host = dict(found.host_p50)
    for h in hosts:
        if h not in per_host and h < FULL_STEP_HOSTS:
            mine = [r[1] for r in window_rows(session, job, h)]
            if mine:
                per_host[h] = statistics.median(mine)
    per_host.update(_rollup_medians(session, job, [h for h in hosts if h >= FULL_STEP_HOSTS]))
    return Percentiles(found.step_p50, found.step_p90, found.wait_p50, per_host)


def _rollup_medians(session: Session, job: Job, hosts: list[int]) -> dict[int, float]:
    """Hosts past the reference ones keep only their deviating raw steps (series/thinning.py): the
    median of their 16-step means over the window stands in."""
    if not hosts:
        return {}
    r = StepRollup
    rows = session.execute(
        select(r.host_index, r.sum_duration / func.nullif(r.n, 0)).where(
            r.job_id == job.id,
            r.level == 0,
            r.host_index.in_(hosts),
            r.bucket > (job.last_step or 0) - WINDOW_STEPS,
        )
    ).all()
    means: dict[int, list[float]] = {}
    for host, mean in rows:
        if mean is not None:
            means.setdefault(host, []).append(float(mean))
    return {h: statistics.median(v) for h, v in means.items()}
