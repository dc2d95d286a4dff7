"""Loading what the goodput breakdown needs of one attempt (a job), in a handful of indexed reads.

Nothing here reads every host's raw steps: wall time comes from the job row, the step window from
one reference host's step rollups (the lowest host that has them; hosts of a synchronous job step
together), the first step and the steady step time from at most ~2,000 of that host's raw steps
(rollups stand in when raw steps were pruned or never stored), and phases, checkpoints and
restores from the job's events. A million-step run costs one rollup read of about 4,000 rows.
"""

from __future__ import annotations

import statistics
import time

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.goodput.breakdown import AttemptFacts, Bucket
from tpuwatch.server.jobs.status import outcome
from tpuwatch.server.models import LEVEL_WIDTHS, Event, Job, Step, StepRollup
from tpuwatch.server.settings import Settings
from tpuwatch.wire import Kind, Phase

MAX_BUCKETS = 8192  # rollup rows one attempt's breakdown reads at most (a finer level when it fits)
STEADY_WINDOW = 2000  # recent raw steps whose median is the steady step time
EVENT_KINDS = (Kind.PHASE, Kind.CHECKPOINT, Kind.RESTORE, Kind.MODEL_INFO, Kind.COMPILE)


def attempt_end(job: Job, settings: Settings, now: float) -> tuple[float, str]:
    """When the attempt ended (or now, while it runs) and how: running, succeeded, failed, lost."""
    status = outcome(job, now, settings)  # how it ended, diverged or not
    if status in ("succeeded", "failed"):
        return (job.ended_at or job.last_seen_at), status
    if status == "lost":
        return job.last_seen_at, "lost"
    return now, "running"


def reference_host(session: Session, job_id: int) -> int | None:
    coarsest = len(LEVEL_WIDTHS) - 1
    return session.scalar(
        select(func.min(StepRollup.host_index)).where(
            StepRollup.job_id == job_id, StepRollup.level == coarsest
        )
    )


def pick_level(steps: int) -> int:
    """The finest rollup level that holds ``steps`` in at most ``MAX_BUCKETS`` buckets.

    >>> pick_level(100_000), pick_level(1_000_000), pick_level(10**9)
    (0, 1, 3)
    """
    for level, width in enumerate(LEVEL_WIDTHS):
        if steps / width <= MAX_BUCKETS:
            return level
    return len(LEVEL_WIDTHS) - 1


def load_buckets(session: Session, job_id: int, host: int, level: int) -> list[Bucket]:
    rows = session.execute(
        select(
            StepRollup.bucket,
            StepRollup.n,
            StepRollup.sum_duration,
            StepRollup.sum_wait,
            StepRollup.max_duration,
            StepRollup.max_step,
            StepRollup.last_ts,
        )
        .where(StepRollup.job_id == job_id, StepRollup.level == level, StepRollup.host_index == host)
        .order_by(StepRollup.bucket)
    ).all()
    return [Bucket(*r) for r in rows]


def _first_and_steady(session: Session, job_id: int, host: int, buckets: list[Bucket]):
    base = select(Step.step, Step.ts, Step.duration, Step.input_wait).where(
        Step.job_id == job_id, Step.host_index == host
    )
    first = session.execute(base.order_by(Step.step).limit(1)).first()
    recent = session.scalars(
        select(Step.duration)
        .where(Step.job_id == job_id, Step.host_index == host, Step.step > (first[0] if first else -1))
        .order_by(Step.step.desc())
        .limit(STEADY_WINDOW)
    ).all()
    steady = statistics.median(recent) if recent else None
    if first is None and buckets:  # raw steps pruned: the first bucket's slowest step stands in
        b = buckets[0]
        first = (b.first, b.last_ts - (b.sum_d - b.max_d) - b.sum_w, b.max_d, 0.0)
    return (tuple(first) if first is not None else None), steady


def _intervals(events, end: float):
    """Phase intervals by name, and checkpoint/restore events, from the job's events."""
    open_: dict[tuple, float] = {}
    phases: dict[str, list] = {}
    saving, saves, restores, info, compiled = [], [], [], [], []
    for host, ts, kind, data in events:
        data = data if isinstance(data, dict) else {}
        if kind == Kind.PHASE:
            name = str(data.get("name") or "phase")[:64]
            if data.get("state") == "begin":
                open_.setdefault((host, name), ts)
            elif (host, name) in open_:
                phases.setdefault(name, []).append((open_.pop((host, name)), ts))
        elif kind in (Kind.CHECKPOINT, Kind.RESTORE):
            dur = data.get("duration")
            if isinstance(dur, (int, float)) and dur > 0:
                saving.append((ts - float(dur), ts))
            step = data.get("step")
            if isinstance(step, int) and not isinstance(step, bool):
                (saves if kind == Kind.CHECKPOINT else restores).append((ts, step))
        elif kind == Kind.MODEL_INFO:
            info.append((host, data))
        elif kind == Kind.COMPILE:  # the framework's own timing of a compilation (agent/compiles.py)
            dur = data.get("duration")
            if isinstance(dur, (int, float)) and not isinstance(dur, bool) and 0 < dur < 86400:
                compiled.append((ts - float(dur), ts))
    for (_, name), began in open_.items():  # began and never ended: it ran until the end
        phases.setdefault(name, []).append((began, max(began, end)))
    for name in Phase.SAVING:
        saving.extend(phases.pop(name, []))
    compiling = phases.pop(Phase.COMPILE, []) + compiled
    return phases, saving, compiling, sorted(saves), sorted(restores), info, bool(compiled)


def load_events(session: Session, job_id: int):
    return session.execute(
        select(Event.host_index, Event.ts, Event.kind, Event.data)
        .where(Event.job_id == job_id, Event.kind.in_(EVENT_KINDS))
        .order_by(Event.ts, Event.id)
    ).all()


def attempt_facts(
    session: Session, job: Job, settings: Settings, now: float | None = None
) -> tuple[AttemptFacts, list]:
    """The facts of ``job`` as one attempt, and its ``model_info`` data [(host, data)]."""
    now = time.time() if now is None else now
    end, outcome = attempt_end(job, settings, now)
    host = reference_host(session, job.id)
    buckets: list[Bucket] = []
    width = LEVEL_WIDTHS[0]
    first = steady = None
    if host is not None:
        total = session.scalar(
            select(func.sum(StepRollup.n)).where(
                StepRollup.job_id == job.id,
                StepRollup.level == len(LEVEL_WIDTHS) - 1,
                StepRollup.host_index == host,
            )
        )
        level = pick_level(int(total or 0))
        width = LEVEL_WIDTHS[level]
        buckets = load_buckets(session, job.id, host, level)
        first, steady = _first_and_steady(session, job.id, host, buckets)
    if buckets:
        end = max(end, buckets[-1].last_ts)  # an agent clock ahead of the server's
    start = min(job.started_at, end)
    phases, saving, compiling, saves, restores, info, measured = _intervals(load_events(session, job.id), end)
    facts = AttemptFacts(
        job_id=job.id,
        start=start,
        end=end,
        outcome=outcome,
        first_step=first,
        last_step=job.last_step,
        buckets=buckets,
        width=width,
        steady=steady,
        saving=saving,
        compiling=compiling,
        measured_compile=measured,
        phases=phases,
        saves=saves,
        restores=restores,
        host=host,
    )
    return facts, info


def boundary(session: Session, facts: AttemptFacts, lost_after: int) -> tuple[int, float] | None:
    """(count, sum of durations) of the raw steps after ``lost_after`` in the bucket holding it."""
    host = facts.host
    if host is None:
        return None
    hi = lost_after - lost_after % facts.width + facts.width
    row = session.execute(
        select(func.count(), func.sum(Step.duration)).where(
            Step.job_id == facts.job_id, Step.host_index == host, Step.step > lost_after, Step.step < hi
        )
    ).first()
    if not row or not row[0]:
        return None
    return int(row[0]), float(row[1] or 0.0)
