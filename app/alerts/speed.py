"""Facts for the slowdown and floor rules, read incrementally so a pass over many jobs stays cheap:
each job's new raw steps on one host since the last pass, its usual step interval from its step
rollups (refreshed every few minutes), and, only while it looks slow, per-host step times and HBM.
"""

from __future__ import annotations

import statistics
import time
from collections import deque

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.alerts.slowdown import FloorFacts, SpeedFacts, is_slow, slow_since, threshold
from tpuwatch.server.models import LEVEL_WIDTHS, Job, JobHost, Metric, Project, Step, StepRollup
from tpuwatch.server.settings import Settings
from tpuwatch.server.slice.hosts import host_stats, slow_lines, slowest
from tpuwatch.wire import MetricName

MIN_STEPS = 32  # steps before a job has a usual speed
BASELINE_EVERY_S = 300.0
BASELINE_BUCKETS = 4096
KEEP_STEPS = 20_000
FLOOR_EVERY_S = 300.0
FLOOR_AFTER_S = 600.0  # a job's goodput means little in its first minutes (startup, compile)
BAR_EVERY_S = 60.0  # live jobs' overview bars are refreshed about this often
BARS_PER_PASS = 20  # at most this many bars computed per evaluation pass
# ... and at most this share of the loop's interval spent on them (at least a second): a bar is a
# goodput computation (~0.1 s), and 20 of them made a pass over 100 jobs outlast its 5 s.
BAR_SHARE = 0.25
FINAL_BAR_LOOKBACK_S = 3600.0  # jobs that ended this recently get their final bar computed


class _State:
    def __init__(self, host: int) -> None:
        self.host = host
        self.last_step: int | None = None
        self.last_ts: float | None = None
        self.steps: deque = deque(maxlen=KEEP_STEPS)  # (end ts, interval, wait)
        self.base: tuple[float, float, float] | None = None
        self.base_at = float("-inf")
        self.floor_at = float("-inf")
        self.floor_values: tuple[float | None, float | None] = (None, None)


class SpeedTracker:
    """Per-job caches of the evaluator; a new leader rebuilds them from the database."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._jobs: dict[int, _State] = {}
        self._bars = 0
        self._bar_s = 0.0
        self._bar_budget = max(1.0, BAR_SHARE * settings.alert_eval_seconds)
        self._floors: dict[int, tuple[float | None, float | None]] = {}  # per project, this pass
        self._due: dict[int, tuple] = {}  # job id -> (goodput, when): bars computed, not yet written

    def forget(self, live: set[int]) -> None:
        self._jobs = {k: v for k, v in self._jobs.items() if k in live}
        self._bars, self._bar_s = 0, 0.0  # a new pass: a new budget of bar refreshes
        self._floors = {}

    def _bars_spent(self) -> bool:
        return self._bars >= BARS_PER_PASS or self._bar_s >= self._bar_budget

    def refresh_bar(self, session: Session, job: Job, now: float) -> None:
        """Recompute the job's goodput when its overview bar is old; ``write_bars`` stores it. Only
        the alert loop writes bars: a page view or an API read never writes, so reads never wait on
        a writer."""
        at = (job.goodput or {}).get("at") if isinstance(job.goodput, dict) else None
        fresh = isinstance(at, (int, float)) and now - at < BAR_EVERY_S and job.ended_at is None
        if fresh or self._bars_spent():
            return
        if isinstance(at, (int, float)) and job.ended_at is not None and at >= job.ended_at:
            return  # computed after the end: final
        self._bars = self._bars + 1
        from tpuwatch.server.goodput.service import job_goodput

        started = time.perf_counter()
        self._due[job.id] = (job_goodput(session, job, self.settings, now), now)
        self._bar_s += time.perf_counter() - started

    def write_bars(self, session: Session) -> None:
        """Store the bars computed in a pass, in job-id order, in the caller's (short) transaction.

        Written during the pass, they held their jobs' rows locked until the pass committed
        (seconds, with 100 jobs) and took them in the candidates' order: ingest groups, which
        take job rows in id order, waited on them, and with a fleet of jobs PostgreSQL found
        deadlocks between the two."""
        from tpuwatch.server.goodput.bars import store

        due, self._due = self._due, {}
        for job_id in sorted(due):
            store(session, job_id, *due[job_id])

    def refresh_ended(self, session: Session, now: float) -> None:
        """Final bars for jobs that ended lately (the live-job pass no longer sees a finished job)."""
        ended = session.scalars(
            select(Job).where(Job.ended_at.is_not(None), Job.ended_at > now - FINAL_BAR_LOOKBACK_S)
        )
        for job in ended:
            if self._bars_spent():
                return
            self.refresh_bar(session, job, now)

    def facts(self, session: Session, job: Job, excluded: list[tuple[float, float]], now: float):
        if job.steps < MIN_STEPS:
            return None
        st = self._jobs.get(job.id)
        if st is None:
            host = session.scalar(
                select(func.min(JobHost.host_index)).where(JobHost.job_id == job.id, JobHost.steps > 0)
            )
            st = self._jobs[job.id] = _State(host or 0)
        if job.last_step != st.last_step:
            self._read(session, job.id, st)
        if now - st.base_at > BASELINE_EVERY_S or st.base is None:
            st.base = _baseline(session, job.id, st.host)
            st.base_at = now
        if st.base is None:
            return None
        sf = SpeedFacts(
            baseline=st.base[0],
            spread=st.base[1],
            base_wait=st.base[2],
            steps=list(st.steps),
            excluded=excluded,
        )
        if is_slow(sf, now, self.settings):  # worth a few more reads: what changed with it
            since = slow_since(sf, threshold(sf.baseline, sf.spread, self.settings)) or now
            sf.hosts = _hosts(session, job.id)
            if len(sf.hosts) > 2:
                sf.host_lines = slow_lines(slowest(host_stats(session, job)))
            sf.hbm_before = _hbm_share(session, job.id, since - 600, since)
            sf.hbm_after = _hbm_share(session, job.id, since, now)
        return sf

    def _read(self, session: Session, job_id: int, st: _State) -> None:
        q = select(Step.step, Step.ts, Step.input_wait).where(
            Step.job_id == job_id, Step.host_index == st.host
        )
        if st.last_step is not None:
            q = q.where(Step.step > st.last_step).order_by(Step.step).limit(KEEP_STEPS)
        else:  # first look: only the newest steps matter
            q = q.order_by(Step.step.desc()).limit(KEEP_STEPS)
        rows = sorted(session.execute(q).all())
        for step, ts, wait in rows:
            if st.last_ts is not None and ts > st.last_ts:
                st.steps.append((ts, ts - st.last_ts, wait))
            st.last_step, st.last_ts = step, ts

    def floors(self, session: Session, job: Job, now: float) -> FloorFacts | None:
        # Read once per project and pass: a Project loaded by session.get() is held only weakly,
        # so each job read it again (100 jobs of one project, 100 round trips a pass).
        if job.project_id not in self._floors:
            row = session.execute(
                select(Project.goodput_floor, Project.mfu_floor).where(Project.id == job.project_id)
            ).first()
            self._floors[job.project_id] = (row[0], row[1]) if row else (None, None)
        goodput_floor, mfu_floor = self._floors[job.project_id]
        if goodput_floor is None and mfu_floor is None:
            return None
        if now - job.started_at < FLOOR_AFTER_S:
            return None
        st = self._jobs.get(job.id)
        if st is None:
            st = self._jobs[job.id] = _State(0)
        if now - st.floor_at > FLOOR_EVERY_S:
            from tpuwatch.server.goodput.service import job_goodput

            g = job_goodput(session, job, self.settings, now)
            st.floor_values = (g.goodput, g.mfu.mfu)
            st.floor_at = now
        return FloorFacts(
            goodput=st.floor_values[0],
            mfu=st.floor_values[1],
            goodput_floor=goodput_floor,
            mfu_floor=mfu_floor,
        )


def _baseline(session: Session, job_id: int, host: int) -> tuple[float, float, float] | None:
    """(median, MAD) of the mean step interval per rollup bucket over the whole run, and the
    median input wait per step: the job's usual speed."""
    n = session.scalar(
        select(func.sum(StepRollup.n)).where(
            StepRollup.job_id == job_id,
            StepRollup.level == len(LEVEL_WIDTHS) - 1,
            StepRollup.host_index == host,
        )
    )
    level = next((i for i, w in enumerate(LEVEL_WIDTHS) if (n or 0) / w <= BASELINE_BUCKETS), 3)
    rows = session.execute(
        select(StepRollup.n, StepRollup.last_ts, StepRollup.sum_wait)
        .where(StepRollup.job_id == job_id, StepRollup.level == level, StepRollup.host_index == host)
        .order_by(StepRollup.bucket)
    ).all()
    means, waits = [], []
    for (_, prev_ts, _), (count, ts, wait) in zip(rows, rows[1:], strict=False):
        if count and ts > prev_ts:
            means.append((ts - prev_ts) / count)
            waits.append(wait / count)
    if len(means) < 2:
        return None
    med = statistics.median(means)
    return med, statistics.median(abs(m - med) for m in means), statistics.median(waits)


def _hosts(session: Session, job_id: int) -> dict[int, float]:
    rows = session.execute(
        select(JobHost.host_index, JobHost.step_time_p50).where(JobHost.job_id == job_id)
    ).all()
    return {h: p for h, p in rows if p}


def _hbm_share(session: Session, job_id: int, lo: float, hi: float) -> float | None:
    peaks = dict(
        session.execute(
            select(Metric.name, func.max(Metric.value))
            .where(
                Metric.job_id == job_id,
                Metric.name.in_((MetricName.HBM_USED, MetricName.HBM_TOTAL)),
                Metric.ts > lo,
                Metric.ts <= hi,
            )
            .group_by(Metric.name)
        ).all()
    )
    used, total = peaks.get(MetricName.HBM_USED), peaks.get(MetricName.HBM_TOTAL)
    return used / total if used is not None and total else None
