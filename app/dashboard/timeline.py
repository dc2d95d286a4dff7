"""A job's timeline: start, first step, checkpoints, node-state changes, alerts, errors and exit,
in time order, with runs of the same repeated event folded into one line ("389 checkpoints"), so a
long run's page stays as short as a new one's."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.dashboard.schemas import TimelineItem
from tpuwatch.server.models import Alert, Job
from tpuwatch.wire import Kind

TIMELINE_KINDS = (
    Kind.START,
    Kind.CHECKPOINT,
    Kind.NODE_STATE,
    Kind.EXIT,
    Kind.ERROR,
    Kind.EPOCH,
    Kind.ARCHIVE,
    Kind.HANG_HINT,
    Kind.STACKS,
)
FOLDED = {Kind.CHECKPOINT: "checkpoints", Kind.EPOCH: "epochs", Kind.HANG_HINT: "hang hints"}


def timeline(session: Session, job: Job, events) -> list[TimelineItem]:
    """The job's moments in time order, repeated ones folded (``fold``)."""
    items = []
    for e in events:
        if e.kind not in TIMELINE_KINDS:
            continue
        first_line = next((ln for ln in e.message.splitlines() if ln.strip()), "")
        data = e.data or {}
        detail = {
            Kind.NODE_STATE: " ".join(str(data.get(k, "")) for k in ("state", "health") if data.get(k)),
            Kind.EXIT: f"code {data.get('code')}"
            if data.get("code") is not None
            else str(data.get("signal") or ""),
            Kind.ARCHIVE: str(data.get("url", "")),
            Kind.CHECKPOINT: str(data.get("path", data.get("step", ""))),
        }.get(e.kind, "")
        items.append(
            TimelineItem(
                ts=e.ts, kind=e.kind, host_index=e.host_index, title=first_line[:200], detail=detail[:300]
            )
        )
    if job.first_step_at is not None:
        items.append(TimelineItem(ts=job.first_step_at, kind="first_step", title="first step (compiled)"))
    items.extend(_alert_items(session, job.id))
    return fold(sorted(items, key=lambda i: i.ts))


def fold(items: list[TimelineItem]) -> list[TimelineItem]:
    """Runs of two or more of a repeated kind (checkpoints, epochs, hang hints) as one item that
    says how many, from when to when; the first and last keep their own words.

    >>> ck = [TimelineItem(ts=t, kind="checkpoint", title="", detail=str(t)) for t in (1, 2, 3)]
    >>> [(i.title, i.count, i.until) for i in fold(ck)]
    [('3 checkpoints', 3, 3.0)]
    """
    out: list[TimelineItem] = []
    for item in items:
        last = out[-1] if out else None
        if last is not None and item.kind in FOLDED and last.kind == item.kind:
            count = last.count + 1
            first_detail = last.detail.split(" … ")[0]
            out[-1] = last.model_copy(
                update={
                    "count": count,
                    "until": item.ts,
                    "title": f"{count} {FOLDED[item.kind]}",
                    "detail": f"{first_detail} … {item.detail}"[:300] if first_detail or item.detail else "",
                    "host_index": last.host_index if last.host_index == item.host_index else None,
                }
            )
        else:
            out.append(item)
    return out


def _alert_items(session: Session, job_id: int) -> list[TimelineItem]:
    out = []
    for a in session.scalars(
        select(Alert).where(Alert.job_id == job_id).order_by(Alert.started_at).limit(50)
    ):
        out.append(TimelineItem(ts=a.started_at, kind="alert", title=f"{a.condition}: {a.summary}"[:200]))
        if a.resolved_at:
            out.append(TimelineItem(ts=a.resolved_at, kind="alert", title=f"{a.condition} resolved"))
    return out
