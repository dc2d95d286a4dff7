"""The evaluator: gather facts about live jobs, judge them (rules.py), and record what changed.

Alertmanager's model, grouped by job: one open alert per job at a time; it notifies when it fires,
repeats every ``alert_repeat_seconds`` while it lasts (unless acknowledged or silenced), notifies
again when its condition changes, and sends one resolve when the job recovers. Every transition is
a conditional UPDATE on ``alerts.version`` written in the same transaction as the deliveries it
causes, so two evaluators racing (a leader change) cannot enqueue the same message twice.
"""

from __future__ import annotations

import time

from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from tpuwatch.server.alerts import diverged, fairness, messages, recompiles, straggler
from tpuwatch.server.alerts.marks import ACTIVE_HORIZON_S, EventMarks
from tpuwatch.server.alerts.rules import JobFacts, Verdict, judge, needs_stall_facts
from tpuwatch.server.alerts.speed import SpeedTracker
from tpuwatch.server.db import insert_ignore
from tpuwatch.server.models import (
    Alert,
    AlertChannel,
    AlertDelivery,
    AlertLog,
    Event,
    Job,
    JobHost,
    Metric,
    Project,
    Step,
)
from tpuwatch.server.settings import Settings
from tpuwatch.server.slice.hosts import stopped_first
from tpuwatch.server.triage.summary import summary_line
from tpuwatch.wire import Kind, MetricName

FAILED_LOOKBACK_S = 3600.0  # failures older than this when first seen raise nothing
EVIDENCE_WINDOW_S = 180.0
DUTY_CYCLE = MetricName.DUTY_CYCLE


class Evaluator:
    """Judges every live job once per ``evaluate`` call. Keeps only caches in memory: a new
    leader (or a restarted server) rebuilds them from the database."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._marks = EventMarks()
        self._gaps: dict[int, tuple[int | None, list[float]]] = {}
        self._speed = SpeedTracker(settings)
        self._stragglers = straggler.StragglerTracker(settings)
        self._compiles = recompiles.RecompileTracker()
        self._budget = fairness.NotifyBudget(settings.alert_project_max_per_minute)
        self.judged = 0  # jobs judged by the last pass

    # -- facts --------------------------------------------------------------------------------

    def _candidates(self, session: Session, now: float):
        open_jobs = select(Alert.job_id).where(
            Alert.open_key.is_not(None),
            ~and_(Alert.condition.in_(("failed", diverged.CONDITION)), Alert.acked_at.is_not(None)),
        )
        q = (
            select(Job, Project.name)
            .join(Project, Project.id == Job.project_id)
            .where(
                or_(
                    and_(Job.ended_at.is_(None), Job.last_seen_at > now - ACTIVE_HORIZON_S),
                    and_(Job.status == "failed", Job.ended_at > now - FAILED_LOOKBACK_S),
                    diverged.recent(now),
                    Job.id.in_(open_jobs),
                )
            )
        )
        return session.execute(q).all()

    def facts(self, session: Session, job: Job, project: str, now: float) -> JobFacts:
        m = self._marks.get(job.id)
        f = JobFacts(
            job_id=job.id,
            name=job.name,
            project=project,
            status="running" if job.status == "stalled" else job.status,
            started_at=job.started_at,
            last_seen_at=job.last_seen_at,
            last_step_at=job.last_step_at,
            last_step=job.last_step,
            steps=job.steps,
            ended_at=job.ended_at,
            exit_code=job.exit_code,
            exit_signal=job.exit_signal,
            diverged_at=job.diverged_at,
        )
        if m.node:
            f.node_state, f.node_health, f.node_cause = m.node[2], m.node[3], m.node[4]
        if m.phase:
            f.phase_began_at, f.phase = m.phase[0], m.phase[2]
        f.phase_ended_at = m.phase_end
        if needs_stall_facts(f, now, self.settings):
            after = job.last_step_at or job.started_at
            f.hang_lines = [line for ts, line in (m.hangs or []) if ts > after]
            f.gaps = self._step_gaps(session, job)
            f.host_lines = stopped_first(session, job, now).lines
            f.core_lines = straggler.core_lines(session, job.id, now)
            f.duty_cycle_max = session.scalar(
                select(Metric.value)
                .where(
                    Metric.job_id == job.id, Metric.name == DUTY_CYCLE, Metric.ts > now - EVIDENCE_WINDOW_S
                )
                .order_by(Metric.value.desc())
                .limit(1)
            )
        elif f.status == "running" and not f.phase_open():
            last = (
                [(m.phase[0], m.phase_end)] if m.phase and m.phase_end and m.phase_end >= m.phase[0] else []
            )
            f.speed = self._speed.facts(session, job, last, now)
            f.floors = self._speed.floors(session, job, now)
            f.straggler = self._stragglers.lines(session, job, now)
            f.compiles = self._compiles.facts(session, job)
        return f

    def _step_gaps(self, session: Session, job: Job) -> list[float]:
        cached = self._gaps.get(job.id)
        if cached and cached[0] == job.last_step:
            return cached[1]
        host = session.scalar(
            select(JobHost.host_index)
            .where(JobHost.job_id == job.id, JobHost.steps > 0)
            .order_by(JobHost.host_index)
        )
        ts = session.scalars(
            select(Step.ts)
            .where(Step.job_id == job.id, Step.host_index == (host or 0))
            .order_by(Step.step.desc())
            .limit(201)
        ).all()
        ts = sorted(ts)
        gaps = [b - a for a, b in zip(ts, ts[1:], strict=False) if b > a]
        self._gaps[job.id] = (job.last_step, gaps)
        return gaps

    def _error_title(self, session: Session, job_id: int) -> str | None:
        """What the alert says about the job's latest error: its card's title and the line that
        says what happened (the card's evidence, else the error text's summary line), never a
        framework preamble such as "Graph execution error:"."""
        rows = session.execute(
            select(Event.message, Event.data)
            .where(Event.job_id == job_id, Event.kind == Kind.ERROR)
            .order_by(Event.ts.desc(), Event.id.desc())
            .limit(20)
        ).all()
        for message, data in rows:
            cards = (data or {}).get("cards") if isinstance(data, dict) else None
            if cards and isinstance(cards[0], dict) and cards[0].get("title"):
                title = str(cards[0]["title"])
                said = str(cards[0].get("evidence") or "").strip().split("\n", 1)[0] or summary_line(
                    message or ""
                )
                return (f"{title}: {said}" if said and said not in title else title)[:300]
        for message, data in rows:
            said = summary_line(message or "")
            exc = (data or {}).get("exception") if isinstance(data, dict) else None
            if said or exc:
                return (said or str(exc).strip())[:300]
        return None

    # -- decisions ----------------------------------------------------------------------------

    def evaluate(self, session: Session, now: float | None = None) -> list[tuple[int, str]]:
        """Judge every live job; returns the transitions made as (alert id, action)."""
        now = time.time() if now is None else now
        self._marks.read(session, now)
        open_alerts = {a.job_id: a for a in session.scalars(select(Alert).where(Alert.open_key.is_not(None)))}
        done: list[tuple[int, str]] = []
        # In job-id order: a transition updates its job's row, and ingest groups lock job rows in
        # id order too (two orders could deadlock).
        candidates = sorted(self._candidates(session, now), key=lambda row: row[0].id)
        self.judged = len(candidates)
        live = {job.id for job, _ in candidates}
        self._gaps = {k: v for k, v in self._gaps.items() if k in live}
        self._speed.forget(live)
        self._stragglers.forget(live)
        self._compiles.forget(live)
        self._marks.forget(live)
        for job, project in candidates:
            f = self.facts(session, job, project, now)
            alert = open_alerts.get(job.id)
            said = diverged.CONDITION if f.diverged_at is not None else f.status
            if said in ("failed", diverged.CONDITION) and (alert is None or alert.condition != said):
                f.error_title = self._error_title(session, job.id)
            self._speed.refresh_bar(session, job, now)
            verdict = (
                diverged.judge_diverged(f)
                or judge(f, now, self.settings)
                or recompiles.judge_recompiling(f, now)
            )
            action = self._apply(session, job, f, verdict, alert, now)
            if action:
                done.append(action)
        self._speed.refresh_ended(session, now)
        for held in self._budget.summaries(now):
            self._summarise(session, held, now)
        return done

    def _summarise(self, session: Session, held, now: float) -> None:
        subject, text = fairness.summary_text(held, self._budget.per_minute, self.settings.public_url)
        alert = session.get(Alert, held.alert_id)
        for channel, target in targets(session, self.settings, alert.project_id) if alert else []:
            body = {"text": text} if channel == "email" else {"text": text, "summary": dict(held.counts)}
            session.add(
                AlertDelivery(
                    alert_id=alert.id,
                    kind="summary",
                    channel=channel,
                    target=target,
                    subject=subject,
                    body=body,
                    status="pending",
                    attempts=0,
                    created_at=now,
                    next_attempt_at=now,
                )
            )

    def write_bars(self, session: Session) -> None:
        """Store the overview bars the last pass computed (its own short transaction: speed.py)."""
        self._speed.write_bars(session)

    def _apply(self, session, job: Job, f: JobFacts, verdict: Verdict | None, alert: Alert | None, now):
        if verdict is None:
            if alert is None:
                return None
            reason = "the job finished" if f.status == "succeeded" else ""
            return self._resolve(session, job, f, alert, now, reason)
        if alert is None:
            return self._fire(session, job, f, verdict, now)
        silenced = alert.silenced_until is not None and alert.silenced_until > now
        if verdict.condition != alert.condition:
            return self._transition(
                session, job, f, alert, now, "changed", "firing", verdict, send=not silenced, clear_ack=True
            )
        if straggler.core_news(verdict.details, alert.details):  # where the cores are: said once
            send = not silenced and alert.acked_at is None
            return self._transition(session, job, f, alert, now, "changed", "firing", verdict, send=send)
        if silenced:
            return None
        if alert.notified_at is None:  # fired while silenced; the silence is over
            return self._transition(session, job, f, alert, now, "fired", "firing", verdict, send=True)
        if alert.acked_at is None and now - alert.notified_at >= self.settings.alert_repeat_seconds:
            return self._transition(session, job, f, alert, now, "repeat", "repeat", verdict, send=True)
        return None

    def _fire(self, session: Session, job: Job, f: JobFacts, verdict: Verdict, now: float):
        values = dict(
            job_id=job.id,
            project_id=job.project_id,
            open_key=job.id,
            condition=verdict.condition,
            state="firing",
            summary=verdict.summary,
            details=verdict.details,
            started_at=now,
            updated_at=now,
            version=1,
            notified_at=now,
            notifications=1,
        )
        if not insert_ignore(session, Alert.__table__, values, ["open_key"]):
            return None  # another evaluator opened it first
        alert = session.scalar(select(Alert).where(Alert.open_key == job.id))
        straggler.ask_cores_on_stall(session, job.id, verdict.condition, now)
        self._log(session, alert.id, now, "fired", verdict.summary)
        self._enqueue(session, alert, f, "firing", now)
        self._mark_job(session, job.id, verdict.condition)
        return alert.id, "fired"

    def _transition(
        self, session, job, f, alert: Alert, now, action, kind, verdict: Verdict, *, send, clear_ack=False
    ):
        values: dict = dict(
            condition=verdict.condition,
            summary=verdict.summary,
            details=verdict.details,
            updated_at=now,
            version=alert.version + 1,
        )
        if send:
            values.update(notified_at=now, notifications=alert.notifications + 1)
        if clear_ack:
            values.update(acked_at=None, acked_by=None)
        if not self._claim(session, alert, values):
            return None
        self._log(session, alert.id, now, action, verdict.summary)
        if send:
            self._enqueue(session, alert, f, kind, now)
        self._mark_job(session, job.id, verdict.condition)
        return alert.id, action

    def _resolve(self, session, job: Job, f: JobFacts, alert: Alert, now: float, reason: str):
        values = dict(
            state="resolved", open_key=None, resolved_at=now, updated_at=now, version=alert.version + 1
        )
        if not self._claim(session, alert, values):
            return None
        why = reason or messages.RECOVERY.get(alert.condition, "")
        self._log(session, alert.id, now, "resolved", why)
        if alert.notifications > 0:  # nobody heard of it (silenced throughout): say nothing
            self._enqueue(session, alert, f, "resolved", now, reason=reason)
        self._mark_job(session, job.id, None)
        return alert.id, "resolved"

    def _claim(self, session: Session, alert: Alert, values: dict) -> bool:
        won = session.execute(
            update(Alert)
            .where(Alert.id == alert.id, Alert.version == alert.version)
            .values(**values)
            .returning(Alert.id)
        ).first()
        if won is None:
            return False
        for k, v in values.items():
            set_committed_value(alert, k, v)  # already written: keep the ORM from writing it again
        return True

    def _mark_job(self, session: Session, job_id: int, condition: str | None) -> None:
        """Keep ``jobs.status`` in step with the alert, so the jobs API and the overview agree."""
        old, new = ("running", "stalled") if condition == "stalled" else ("stalled", "running")
        # "fetch" syncs only the matched row; the default evaluates the criteria against every
        # object in the session (all candidate jobs), which made a pass over n jobs cost O(n²).
        session.execute(
            update(Job).where(Job.id == job_id, Job.status == old).values(status=new),
            execution_options={"synchronize_session": "fetch"},
        )

    def _log(self, session: Session, alert_id: int, now: float, action: str, detail: str) -> None:
        session.add(AlertLog(alert_id=alert_id, ts=now, action=action, detail=detail[:4000]))

    def _enqueue(
        self, session: Session, alert: Alert, f: JobFacts, kind: str, now: float, reason: str = ""
    ) -> None:
        if not self._budget.take(alert.project_id, f.project, alert.condition, alert.id, now):
            return  # past the project's notifications a minute: summed up (fairness.py)
        msg = messages.build(
            kind,
            project=f.project,
            job=f.name,
            job_id=f.job_id,
            alert_id=alert.id,
            condition=alert.condition,
            summary=alert.summary,
            public_url=self.settings.public_url,
            since=alert.started_at,
            now=now,
            reason=reason,
        )
        for channel, target in targets(session, self.settings, alert.project_id):
            body = msg.body if channel == "webhook" else {"text": msg.text}
            session.add(
                AlertDelivery(
                    alert_id=alert.id,
                    kind=kind,
                    channel=channel,
                    target=target,
                    subject=msg.subject[:300],
                    body=body,
                    status="pending",
                    attempts=0,
                    created_at=now,
                    next_attempt_at=now,
                )
            )
        session.flush()


def targets(session: Session, settings: Settings, project_id: int) -> list[tuple[str, str]]:
    """Where a project's alerts go: the server-wide defaults, then the project's own channels."""
    out: list[tuple[str, str]] = []
    if settings.alert_webhook_url:
        out.append(("webhook", settings.alert_webhook_url))
    out += [("email", a.strip()) for a in settings.alert_email_to.split(",") if a.strip()]
    rows = session.execute(
        select(AlertChannel.kind, AlertChannel.target)
        .where(AlertChannel.project_id == project_id)
        .order_by(AlertChannel.id)
    ).all()
    for kind, target in rows:
        if (kind, target) not in out:
            out.append((kind, target))
    return out
