"""What the evaluator remembers from a job's events between passes: its node state, an open phase
(a long checkpoint or compile), and hang lines. Read incrementally by event id, so a pass costs the
events written since the last one, not the job's history."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.models import Event
from tpuwatch.wire import Kind

ACTIVE_HORIZON_S = 24 * 3600.0  # a job silent longer than this before we first saw it is history
EVENT_KINDS = (Kind.NODE_STATE, Kind.PHASE, Kind.CHECKPOINT, Kind.HANG_HINT)
EVENT_ID_MARGIN = 1000  # rows committed late with lower ids (PostgreSQL sequences) are still read
MAX_MARKS = 10_000


@dataclass
class Marks:
    """Per-job state distilled from events: node state, long phases, hang lines."""

    node: tuple | None = None  # (ts, id, state, health, cause)
    phase: tuple | None = None  # (ts, id, name) of an unmatched begin
    phase_end: float | None = None
    hangs: list | None = None  # [(ts, line)]


class EventMarks:
    """Marks for every job, kept up to date from the events table."""

    def __init__(self) -> None:
        self._watermark = 0
        self._marks: dict[int, Marks] = {}

    def get(self, job_id: int) -> Marks:
        return self._marks.get(job_id) or Marks()

    def forget(self, live: set[int]) -> None:
        """Drop the marks of jobs long finished once there are many."""
        if len(self._marks) > MAX_MARKS:
            self._marks = {k: v for k, v in self._marks.items() if k in live}

    def read(self, session: Session, now: float) -> None:
        q = select(Event.id, Event.job_id, Event.ts, Event.kind, Event.message, Event.data).where(
            Event.id > self._watermark - EVENT_ID_MARGIN, Event.kind.in_(EVENT_KINDS)
        )
        if self._watermark == 0:
            q = q.where(Event.ts > now - ACTIVE_HORIZON_S)
        for eid, job_id, ts, kind, message, data in session.execute(q.order_by(Event.id)):
            self._watermark = max(self._watermark, eid)
            self._note(self._marks.setdefault(job_id, Marks()), eid, ts, kind, message, data)

    @staticmethod
    def _note(m: Marks, eid: int, ts: float, kind: str, message: str, data) -> None:
        data = data if isinstance(data, dict) else {}
        if kind == Kind.NODE_STATE:
            if m.node is None or (ts, eid) > m.node[:2]:
                m.node = (
                    ts,
                    eid,
                    str(data.get("state") or ""),
                    str(data.get("health") or ""),
                    str(data.get("likely_cause") or "")[:300],
                )
        elif kind == Kind.HANG_HINT:
            hangs = m.hangs or []
            if all(h[0] != ts for h in hangs):
                m.hangs = sorted([*hangs, (ts, message[:500])])[-5:]
        else:
            name = str(data.get("name") or (Kind.CHECKPOINT if kind == Kind.CHECKPOINT else Kind.PHASE))[:64]
            state = str(data.get("state") or "end")
            if state == "begin":
                if m.phase is None or (ts, eid) > m.phase[:2]:
                    m.phase = (ts, eid, name)
            elif m.phase_end is None or ts > m.phase_end:
                m.phase_end = ts
