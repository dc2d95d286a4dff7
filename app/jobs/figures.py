"""The derived figures of a job, computed once, here, from one window of its stored series: the
header, the hosts table, the overview, the post-mortem, the compare page, ``/metrics``, the jobs API
and the performance cards all read them, so they cannot disagree.

The window is the last ``WINDOW_STEPS`` steps of the job on its reference hosts (the first
``FULL_STEP_HOSTS``, series/thinning.py: a synchronous job's hosts step together, and reading every
host of a 4,096-host job made the overview read ~500,000 rollup rows), without its first step
(XLA compilation, often 100x the rest). Input wait is timed outside the step (``mon.wrap``,
``with mon.input_wait():`` before ``with mon.step():``), so the wall time a step costs is its
duration plus its wait:

- ``steps``: training steps, the furthest host's count (hosts step together: never a sum over
  hosts); ``hosts`` beside it
- ``step_time_p50`` / ``step_time_p90`` / ``input_wait_p50``: over the reference host's (the lowest
  with steps) raw steps in the window
- ``input_share`` = sum(wait) / sum(duration + wait), never clipped: it cannot pass 100%
- ``step_wall_s`` = sum(duration + wait) / steps, the wall time of one step
- ``steps_per_s`` = steps / (sum(duration + wait) + the quiet since the last step beyond one
  more step's time, while the job runs), per host; 0 for a stalled or lost job (its rate now)
- ``mfu`` = model FLOPs per step / (``step_wall_s`` x the job's peak FLOP/s): over wall time, the
  input wait included; above 100% the peak or the FLOPs are wrong, and ``mfu_warning`` says so
- ``hbm_share``: the fullest chip's peak use over its capacity
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

from sqlalchemy import and_, case, func, select
from sqlalchemy.orm import Session

from tpuwatch import mfu as chips
from tpuwatch.server.jobs import window
from tpuwatch.server.jobs.peak import flops_per_step, job_peak
from tpuwatch.server.models import Event, Job, JobHost, Metric, StepRollup
from tpuwatch.server.series.thinning import FULL_STEP_HOSTS
from tpuwatch.wire import Kind, MetricName

WINDOW_STEPS = window.WINDOW_STEPS
STOPPED = ("stalled", "lost")
MFU_WRONG = "above 100% of peak: the peak FLOP/s or the FLOPs per step are wrong"


@dataclass
class Figures:
    window_steps: int = 0  # steps of the reference hosts the shares and rate come from
    steps: int = 0  # training steps: the furthest host's
    hosts: int = 0
    last_step: int | None = None
    input_share: float | None = None
    steps_per_s: float | None = None
    step_time_p50: float | None = None
    step_time_p90: float | None = None
    input_wait_p50: float | None = None
    step_wall_s: float | None = None
    hbm_share: float | None = None
    flops_per_step: float | None = None
    peak_flops: float | None = None
    peak_source: str | None = None
    accelerator_type: str | None = None
    mfu: float | None = None
    mfu_warning: str | None = None
    host_p50: dict[int, float] = field(default_factory=dict)  # per host, same window

    def as_dict(self) -> dict:
        out = asdict(self)
        out["host_p50"] = {str(k): v for k, v in self.host_p50.items()}
        return out


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


def mfu_of(
    flops: float | None, step_wall_s: float | None, peak: float | None
) -> tuple[float | None, str | None]:
    """(MFU, warning): model FLOPs per step over what the chips could do in one step's wall time.

    >>> mfu_of(46e12, 1.0, 100e12)
    (0.46, None)
    >>> mfu_of(2e12, 0.01, 100e12)[1]
    'above 100% of peak: the peak FLOP/s or the FLOPs per step are wrong'
    """
    value = chips.mfu(flops, step_wall_s, peak)
    return value, (MFU_WRONG if value is not None and value > 1.0 else None)


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


def training_steps(session: Session, ids: list[int]) -> dict[int, tuple[int, int]]:
    """``{job id: (training steps, hosts)}``: the furthest host's step count, and how many hosts."""
    if not ids:
        return {}
    q = (
        select(JobHost.job_id, func.max(JobHost.steps), func.count())
        .where(JobHost.job_id.in_(ids))
        .group_by(JobHost.job_id)
    )
    return {job_id: (int(n or 0), int(h)) for job_id, n, h in session.execute(q)}


def model_flops(session: Session, ids: list[int]) -> dict[int, list[tuple[int, dict]]]:
    """``{job id: [(host, model_info data)]}`` of the jobs that told their model's FLOPs."""
    if not ids:
        return {}
    out: dict[int, list] = {}
    q = (
        select(Event.job_id, Event.host_index, Event.data)
        .where(Event.job_id.in_(ids), Event.kind == Kind.MODEL_INFO)
        .order_by(Event.ts, Event.id)
    )
    for job_id, host, data in session.execute(q):
        if isinstance(data, dict):
            out.setdefault(job_id, []).append((host, data))
    return out


def figures_for(
    session: Session,
    jobs: list[Job],
    statuses: dict[int, str],
    now: float | None = None,
    *,
    hosts_too: bool = False,
    counts: dict[int, tuple[int, int]] | None = None,
) -> dict[int, Figures]:
    """Every figure of each of ``jobs`` (``statuses``: their effective status), in a handful of
    grouped queries; the percentiles of a job are read once per new step (``window.percentiles``).
    ``hosts_too`` adds each host's median step time (the hosts table); ``counts`` are the jobs'
    ``training_steps`` when the caller read them already."""
    now = time.time() if now is None else now
    ids = [j.id for j in jobs]
    totals = window_totals(session, ids)
    hbm = hbm_shares(session, ids)
    counts = training_steps(session, ids) if counts is None else counts
    info = model_flops(session, ids)
    pcts = window.percentiles(session, [j for j in jobs if counts.get(j.id, (0, 0))[0]], hosts_too)
    out: dict[int, Figures] = {}
    for job in jobs:
        status = statuses.get(job.id, "running")
        t = totals.get(job.id)
        share, rate = job_shares(t, status, now)
        steps, hosts = counts.get(job.id, (0, 0))
        pct = pcts.get(job.id) or window.Percentiles()
        f = Figures(
            window_steps=t[0] if t else 0,
            steps=steps,
            hosts=hosts,
            last_step=job.last_step,
            input_share=share,
            steps_per_s=rate,
            step_time_p50=pct.step_p50,
            step_time_p90=pct.step_p90,
            input_wait_p50=pct.wait_p50,
            step_wall_s=(t[1] + t[2]) / t[0] if t and t[0] else None,
            hbm_share=hbm.get(job.id),
            host_p50=pct.host_p50,
        )
        flops = flops_per_step(info.get(job.id, []))
        if flops:
            f.flops_per_step = flops
            f.peak_flops, f.peak_source, f.accelerator_type = job_peak(session, job.id, info.get(job.id, []))
            f.mfu, f.mfu_warning = mfu_of(flops, f.step_wall_s, f.peak_flops)
        out[job.id] = f
    return out


def job_figures(session: Session, job: Job, status: str, hosts_too: bool = False) -> Figures:
    """Every derived figure of one job (see the module's docstring)."""
    return figures_for(session, [job], {job.id: status}, hosts_too=hosts_too)[job.id]
