"""Goodput of one attempt (a job) and of a training run (its attempts), with MFU.

An attempt's lost work depends on the attempt after it (the step it resumed from), so both are
computed within the run. Services only read; nothing here writes.
"""

from __future__ import annotations

import time

from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.goodput import facts as load
from tpuwatch.server.goodput.attempts import attempts_of, group_of
from tpuwatch.server.goodput.breakdown import CAUSES, AttemptFacts, Breakdown, breakdown, resume_point
from tpuwatch.server.goodput.mfu import attempt_mfu, mfu_series
from tpuwatch.server.goodput.schemas import AttemptOut, Badput, Goodput, JobGoodput, Mfu, MfuPoint, RunGoodput
from tpuwatch.server.jobs.status import effective_status
from tpuwatch.server.models import Job, Project
from tpuwatch.server.settings import Settings


class Computed:
    """One attempt computed: its job, facts, breakdown and MFU."""

    def __init__(self, job: Job, facts: AttemptFacts, info: list, result: Breakdown, mfu: Mfu) -> None:
        self.job, self.facts, self.info, self.result, self.mfu = job, facts, info, result, mfu


def _goodput(b: Breakdown, start: float, end: float, mfu: Mfu) -> Goodput:
    return Goodput(
        total_s=b.total_s,
        productive_s=b.productive_s,
        badput_s=Badput(**b.badput_s),
        goodput=b.goodput,
        start=start,
        end=end,
        phases_s=b.phases_s,
        steady_step_s=b.steady_step_s,
        steps=b.steps,
        productive_steps=b.productive_steps,
        lost_steps=b.lost_steps,
        stalls=b.stalls,
        mfu=mfu,
    )


def compute_attempts(
    session: Session, attempts: list[Job], settings: Settings, now: float, only: Job | None = None
) -> list[Computed | None]:
    """Breakdowns of ``attempts`` (one training run, in order); with ``only``, just that one (and
    the facts of the attempt after it, which say where it resumed)."""
    loaded: list[tuple[AttemptFacts, list] | None] = [None] * len(attempts)
    wanted = range(len(attempts)) if only is None else [attempts.index(only)]
    for i in wanted:
        loaded[i] = load.attempt_facts(session, attempts[i], settings, now)
        if i + 1 < len(attempts) and loaded[i][0].died and loaded[i + 1] is None:
            loaded[i + 1] = load.attempt_facts(session, attempts[i + 1], settings, now)
    out: list[Computed | None] = [None] * len(attempts)
    for i in wanted:
        facts, info = loaded[i]
        lost_after = bound = None
        if facts.died:
            following = loaded[i + 1][0] if i + 1 < len(attempts) else None
            lost_after = resume_point(facts, following)
            bound = load.boundary(session, facts, lost_after)
        result = breakdown(facts, lost_after, bound)
        mfu = attempt_mfu(session, attempts[i], facts.outcome)
        out[i] = Computed(attempts[i], facts, info, result, mfu)
    return out


def job_goodput(session: Session, job: Job, settings: Settings, now: float | None = None) -> JobGoodput:
    """This attempt's goodput (``GET /api/v1/jobs/{id}/goodput``)."""
    return _job_goodput(session, job, settings, now)[0]


def _job_goodput(
    session: Session, job: Job, settings: Settings, now: float | None
) -> tuple[JobGoodput, Computed]:
    now = time.time() if now is None else now
    attempts = attempts_of(session, job)
    c = compute_attempts(session, attempts, settings, now, only=job)[attempts.index(job)]
    return _attempt_goodput(job, attempts, c), c


def _attempt_goodput(job: Job, attempts: list[Job], c: Computed) -> JobGoodput:
    g = _goodput(c.result, c.facts.start, c.facts.end, c.mfu)
    return JobGoodput(
        **g.model_dump(),
        job_id=job.id,
        outcome=c.facts.outcome,
        resumed_from=c.result.resumed_from,
        lost_after=c.result.lost_after,
        group=group_of(job),
        attempt=attempts.index(job) + 1,
        attempts=len(attempts),
        run_url=f"/runs/{attempts[0].id}",
    )


def run_goodput(session: Session, job: Job, settings: Settings, now: float | None = None) -> RunGoodput:
    """Goodput of the training run ``job`` is an attempt of: its attempts, and all of them
    together over wall time from the first one's start to the last one's end (or now)."""
    now = time.time() if now is None else now
    attempts = attempts_of(session, job)
    done = [c for c in compute_attempts(session, attempts, settings, now) if c is not None]
    bad = dict.fromkeys(CAUSES, 0.0)
    productive = 0.0
    covered_to = None
    for c in done:
        for k, v in c.result.badput_s.items():
            bad[k] += v
        productive += c.result.productive_s
        if covered_to is not None and c.facts.start > covered_to:
            bad["idle"] += c.facts.start - covered_to
        covered_to = c.facts.end if covered_to is None else max(covered_to, c.facts.end)
    total = productive + sum(bad.values())
    steps = sum(c.result.steps for c in done)
    phases: dict[str, float] = {}
    for c in done:
        for k, v in c.result.phases_s.items():
            phases[k] = phases.get(k, 0.0) + v
    project = session.scalar(select(Project.name).where(Project.id == job.project_id)) or ""
    return RunGoodput(
        total_s=total,
        productive_s=productive,
        badput_s=Badput(**bad),
        goodput=productive / total if total > 0 else None,
        start=done[0].facts.start,
        end=covered_to,
        phases_s=phases,
        steady_step_s=done[-1].result.steady_step_s,
        steps=steps,
        productive_steps=sum(c.result.productive_steps for c in done),
        lost_steps=sum(c.result.lost_steps for c in done),
        stalls=sum(c.result.stalls for c in done),
        mfu=_run_mfu(done),
        group=group_of(job),
        project=project,
        first_job_id=attempts[0].id,
        attempts=[_attempt_out(c, settings, now) for c in done],
    )


def _attempt_out(c: Computed, settings: Settings, now: float) -> AttemptOut:
    j = c.job
    return AttemptOut(
        job_id=j.id,
        name=j.name,
        run_id=j.run_id,
        status=effective_status(j, now, settings),
        started_at=j.started_at,
        ended_at=j.ended_at,
        url=f"/jobs/{j.id}",
        resumed_from=c.result.resumed_from,
        lost_after=c.result.lost_after,
        goodput=_goodput(c.result, c.facts.start, c.facts.end, c.mfu),
    )


def _run_mfu(done: list[Computed]) -> Mfu:
    """The attempts' MFU weighted by their productive time (the last attempt's figures otherwise)."""
    have = [c for c in done if c.mfu.mfu is not None and c.result.productive_s > 0]
    last = done[-1].mfu if done else Mfu()
    if not have:
        return last
    weight = sum(c.result.productive_s for c in have)
    value = sum(c.mfu.mfu * c.result.productive_s for c in have) / weight
    return last.model_copy(update={"mfu": value})


def job_mfu_series(
    session: Session, job: Job, settings: Settings, now: float | None = None
) -> list[MfuPoint]:
    """MFU over time for the job page's chart."""
    now = time.time() if now is None else now
    return _mfu_points(session, job, *load.attempt_facts(session, job, settings, now))


def _mfu_points(
    session: Session, job: Job, facts: AttemptFacts, info, mfu: Mfu | None = None
) -> list[MfuPoint]:
    mfu = mfu if mfu is not None else attempt_mfu(session, job, facts.outcome)
    first = facts.first_step[0] if facts.first_step else None
    return mfu_series(facts.buckets, mfu, first)


def page_goodput(session: Session, job: Job, settings: Settings, now: float | None = None) -> dict:
    """What the job page and the post-mortem show of goodput: this attempt, its training run (when
    it has more than one attempt) and MFU over time."""
    now = time.time() if now is None else now
    attempt, computed = _job_goodput(session, job, settings, now)  # its facts serve the MFU chart too
    run = run_goodput(session, job, settings, now) if attempt.attempts > 1 else None
    points = _mfu_points(session, job, computed.facts, computed.info, computed.mfu)
    return {"goodput": attempt, "run_goodput": run, "mfu_points": points}
