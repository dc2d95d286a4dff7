"""The derived figures of a job, computed once, here, from one window: the overview's table, the
job page and the performance cards all read them, so they cannot disagree.

The window is the last ``WINDOW_STEPS`` steps of the job on its reference hosts (the first
``FULL_STEP_HOSTS``, series/thinning.py: a synchronous job's hosts step together, and reading every
host of a 4,096-host job made the overview read ~500,000 rollup rows), without its first step
(XLA compilation, often 100x the rest). Input wait is timed outside the step (``mon.wrap``,
``with mon.input_wait():`` before ``with mon.step():``), so the time a step costs is its duration
plus its wait, and the input-bound share is wait over that sum: never above 100%.

- ``input_share`` = sum(wait) / sum(duration + wait)
- ``steps_per_s`` = steps / (sum(duration + wait) + the quiet since the last step beyond one
  more step's time, while the job runs), per host; 0 for a stalled or lost job (its rate now)
- ``step_time_p50`` / ``input_wait_p50``: medians of the first host's steps in the window
- ``hbm_share``: the fullest chip's peak use over its capacity
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict, dataclass

from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import Session

from tpuwatch.server.models import Job, Metric, Step, StepRollup
from tpuwatch.server.series.thinning import FULL_STEP_HOSTS
from tpuwatch.wire import MetricName

WINDOW_STEPS = 2048  # a multiple of the finest rollup width (16): whole buckets
STOPPED = ("stalled", "lost")


@dataclass
class Figures:
    window_steps: int = 0  # steps of the reference hosts the shares and rate come from
    input_share: float | None = None
    steps_per_s: float | None = None
    step_time_p50: float | None = None
    input_wait_p50: float | None = None
    hbm_share: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def shares(
    n: int, duration: float, wait: float, status: str, quiet: float = 0.0
) -> tuple[float | None, float | None]:
    """(input share, steps/s) of ``n`` steps that took ``duration`` + ``wait`` seconds, ``quiet``
    seconds having passed since the last of them (a job still running).

    >>> shares(100, 20.0, 30.0, "running")  # waits longer than steps: 60%, not 150%
    (0.6, 2.0)
    >>> shares(100, 0.155, 0.0, "stalled")  # fast steps, then nothing: no progress now
    (0.0, 0.0)
    >>> round(shares(100, 0.15, 0.0, "running", quiet=99.85)[1], 3)  # not yet judged stalled: slow
    1.0
    """
    total = duration + wait
    if n <= 0 or total <= 0:
        return None, None
    if status in STOPPED:
        return wait / total, 0.0
    late = max(0.0, quiet - total / n) if status == "running" else 0.0
    return wait / total, n / (total + late)


def window_totals(session: Session, ids: list[int]) -> dict[int, tuple[int, float, float, float]]:
    """``{job id: (steps, sum of durations, sum of waits, last step time)}`` over each job's window
    (its reference hosts), from the finest rollups in one query for all jobs (the overview asks for
    hundreds at once)."""
    if not ids:
        return {}
    r = StepRollup
    # The job's first step is compilation: out of bucket 0 when it is that bucket's slowest step.
    compile_step = and_(r.bucket == 0, r.max_step <= 1)
    q = (
        select(
            r.job_id,
            func.sum(r.n - case((compile_step, 1), else_=0)),
            func.sum(r.sum_duration - case((compile_step, r.max_duration), else_=0.0)),
            func.sum(
                r.sum_wait - case((and_(compile_step, r.max_wait_step == r.max_step), r.max_wait), else_=0.0)
            ),
            func.max(r.last_ts),
        )
        .join(Job, Job.id == r.job_id)
        .where(
            r.level == 0,
            r.job_id.in_(ids),
            r.host_index < FULL_STEP_HOSTS,
            r.bucket > func.coalesce(Job.last_step, 0) - WINDOW_STEPS,
        )
        .group_by(r.job_id)
    )
    return {
        job_id: (int(n or 0), float(d or 0), max(0.0, float(w or 0)), float(ts or 0))
        for job_id, n, d, w, ts in session.execute(q)
    }


def job_shares(totals: tuple[int, float, float, float] | None, status: str, now: float):
    """(input share, steps/s) of a job from its ``window_totals`` entry."""
    if totals is None:
        return None, None
    n, d, w, last = totals
    return shares(n, d, w, status, quiet=max(0.0, now - last))


def hbm_shares(session: Session, ids: list[int]) -> dict[int, float]:
    """Peak HBM use over capacity of each job's fullest chip."""
    if not ids:
        return {}
    q = (
        select(Metric.job_id, Metric.host_index, Metric.chip, Metric.name, func.max(Metric.value))
        .where(Metric.job_id.in_(ids), Metric.name.in_((MetricName.HBM_USED, MetricName.HBM_TOTAL)))
        .group_by(Metric.job_id, Metric.host_index, Metric.chip, Metric.name)
    )
    used: dict[tuple, float] = {}
    total: dict[tuple, float] = {}
    for job_id, host, chip, name, value in session.execute(q):
        if value is not None:
            (used if name == MetricName.HBM_USED else total)[(job_id, host, chip)] = value
    out: dict[int, float] = {}
    for key, value in used.items():
        if total.get(key):
            out[key[0]] = max(out.get(key[0], 0.0), value / total[key])
    return out


def window_steps(session: Session, job: Job, host: int) -> list[tuple[int, float, float]]:
    """``(step, duration, wait)`` of ``host``'s steps in the window, oldest first, without the
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
    if len(rows) > 1 and rows[0][0] <= 1:
        rows = rows[1:]
    return [tuple(r) for r in rows]


def job_figures(session: Session, job: Job, status: str, host: int = 0) -> Figures:
    """Every derived figure of one job (see the module's docstring)."""
    totals = window_totals(session, [job.id]).get(job.id)
    share, rate = job_shares(totals, status, time.time())
    rows = window_steps(session, job, host)
    return Figures(
        window_steps=totals[0] if totals else 0,
        input_share=share,
        steps_per_s=rate,
        step_time_p50=statistics.median(r[1] for r in rows) if rows else None,
        input_wait_p50=statistics.median(r[2] for r in rows) if rows else None,
        hbm_share=hbm_shares(session, [job.id]).get(job.id),
    )
