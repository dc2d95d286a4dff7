"""Triage in the server: classify error events as they arrive, and pasted logs on request."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.auth.principal import Principal, readable
from tpuwatch.server.models import Event, Job
from tpuwatch.server.triage.schemas import CardOut, TriageResult, UnknownGroup, UnknownGroups
from tpuwatch.server.triage.structure import is_own_line
from tpuwatch.wire import Kind

# What the ingest path knows about a job that makes fixes concrete (see engine._tailor).
CONTEXT_KEYS = ("global_batch_size", "replicas", "num_replicas", "hbm_limit")


def triage_text(text: str, context: Mapping | None = None) -> TriageResult:
    from tpuwatch.server.triage import classify_text

    cards = [CardOut(**c.to_dict()) for c in classify_text(text, context or {})]
    return TriageResult(cards=cards, category=cards[0].category if cards else "unknown")


def cards_for_error_event(message: str, data: dict | None, context: Mapping | None = None) -> list[dict]:
    """Cards for one error event: its text read with the log lines the agent sent before it, by
    the same function the ``tpuwatch triage`` CLI uses on a log file (``engine.triage_error``)."""
    from tpuwatch.server.triage.engine import triage_error

    # tpuwatch's own agent lines ("tpuwatch: metrics ... unavailable") are never evidence.
    message = "\n".join(ln for ln in message.splitlines() if not is_own_line(ln))
    before = []
    if data and isinstance(data.get("context"), list):
        before = [str(x) for x in data["context"][-40:] if not is_own_line(str(x))]
    if not message.strip() and not before:
        return []
    return [c.to_dict() for c in triage_error(message, before, context or {})]


def classify_events(events: list[tuple], context: Mapping | None = None) -> list[tuple]:
    """Return the batch's event rows with ``data["cards"]`` filled in for error events."""
    out = []
    for row in events:
        ts, kind, message, data = row
        if kind == Kind.ERROR and not (data and "cards" in data):
            data = dict(data or {})
            data["cards"] = cards_for_error_event(message, data, context)
            if not data["cards"]:
                from tpuwatch.server.triage.templates import template_for

                key, template = template_for(message)
                data["template"] = {"key": key, "text": template}
        out.append((ts, kind, message, data))
    return out


def unknown_groups(session: Session, principal: Principal, max_events: int = 5000) -> UnknownGroups:
    """The recent errors no signature knows, grouped by mined template (Drain3) across jobs and
    hosts, the most frequent first: the same new failure is one group with a count."""
    from tpuwatch.server.triage.templates import UnknownGrouper

    q = (
        select(Event.job_id, Event.host_index, Event.ts, Event.message, Event.data, Job.name)
        .join(Job, Job.id == Event.job_id)
        .where(Event.kind == Kind.ERROR)
        .order_by(Event.id.desc())
        .limit(max_events)
    )
    q = readable(q, principal, Job.project_id)
    grouper = UnknownGrouper()
    seen: dict[str, dict] = {}
    for job_id, host, ts, message, data, name in session.execute(q):
        if (data or {}).get("cards"):
            continue
        group = grouper.add(message, source=f"{job_id}/{host}")
        info = seen.setdefault(group.key, {"jobs": {}, "last_seen": ts})
        info["jobs"][job_id] = name
        info["last_seen"] = max(info["last_seen"], ts)
    groups = [
        UnknownGroup(
            key=g.key,
            template=g.template,
            count=g.count,
            hosts=len(g.sources),
            jobs=[{"id": j, "name": n} for j, n in sorted(seen[g.key]["jobs"].items())],
            last_seen=seen[g.key]["last_seen"],
            example=g.example,
        )
        for g in grouper.groups()
    ]
    return UnknownGroups(groups=groups)


def annotate_unknowns(
    session: Session, job: Job, cards: list[dict], days: float = 7.0, limit: int = 2000
) -> None:
    """Give each unknown error card of ``job`` its group across the project's recent jobs: the
    mined template and the other jobs whose unknown errors fell in the same group in the last
    ``days`` ("seen in 3 other jobs this week"), so a team learns its own recurring failures.

    Cards come from :func:`tpuwatch.server.dashboard.page.error_cards` (``event_id`` set); the card
    gains ``unknown_group``: ``{"key", "template", "other_jobs": [{"id", "name"}], "days"}``."""
    from tpuwatch.server.triage.templates import UnknownGrouper

    wanted = {c["event_id"] for c in cards if c.get("category") == "unknown" and c.get("event_id")}
    if not wanted:
        return
    newest = session.scalar(select(Event.ts).where(Event.id.in_(wanted)).order_by(Event.ts.desc()).limit(1))
    since = (newest or 0.0) - days * 86400
    q = (
        select(Event.id, Event.job_id, Event.message, Event.data, Job.name)
        .join(Job, Job.id == Event.job_id)
        .where(Event.kind == Kind.ERROR, Job.project_id == job.project_id)
        .where((Event.ts >= since) | Event.id.in_(wanted))
        .order_by(Event.id.desc())
        .limit(limit)
    )
    grouper = UnknownGrouper()
    group_of: dict[int, str] = {}
    jobs: dict[str, dict[int, str]] = {}
    for event_id, job_id, message, data, name in reversed(session.execute(q).all()):
        if (data or {}).get("cards"):
            continue
        group = grouper.add(message, source=str(job_id))
        group_of[event_id] = group.key
        jobs.setdefault(group.key, {})[job_id] = name
    templates = {g.key: g.template for g in grouper.groups()}
    for card in cards:
        key = group_of.get(card.get("event_id"))
        if card.get("category") != "unknown" or key is None:
            continue
        others = sorted((j, n) for j, n in jobs[key].items() if j != job.id)
        card["unknown_group"] = {
            "key": key,
            "template": templates.get(key, ""),
            "other_jobs": [{"id": j, "name": n} for j, n in others],
            "days": days,
        }
