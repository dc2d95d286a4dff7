"""Fair alerting across projects: one project's flood must not drown another's news.

- ``NotifyBudget``: each project may start at most ``per_minute`` notifications a minute. Alerts past
  that are still opened and shown on the alerts page, but not sent one by one: once a minute the
  project gets one summary instead ("412 jobs lost in project vision").
- ``fair_order``: due deliveries are sent round-robin across projects (each project's oldest first),
  so a failed job's notification waits behind at most one message of each other project, never
  behind another project's backlog (delivery.py).

>>> b = NotifyBudget(per_minute=2)
>>> [b.take(1, "p", "lost", 7, now=0.0) for _ in range(4)], b.take(2, "q", "failed", 8, now=0.0)
([True, True, False, False], True)
>>> [(s.project, dict(s.counts)) for s in b.summaries(now=0.0)]
[('p', {'lost': 2})]
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

from sqlalchemy import func, select

from tpuwatch.server.models import Alert, AlertDelivery

WINDOW_S = 60.0


@dataclass
class Held:
    project: str
    alert_id: int  # the latest alert held: the summary's delivery hangs on it
    counts: Counter = field(default_factory=Counter)


class NotifyBudget:
    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._sent: dict[int, deque[float]] = {}
        self._held: dict[int, Held] = {}
        self._summed_at: dict[int, float] = {}

    def take(self, project_id: int, project: str, condition: str, alert_id: int, now: float) -> bool:
        """True when this notification may go out one by one; else it is held for the summary."""
        if self.per_minute <= 0:
            return True
        sent = self._sent.setdefault(project_id, deque())
        while sent and sent[0] <= now - WINDOW_S:
            sent.popleft()
        if len(sent) < self.per_minute:
            sent.append(now)
            return True
        held = self._held.setdefault(project_id, Held(project, alert_id))
        held.alert_id = alert_id
        held.counts[condition] += 1
        return False

    def summaries(self, now: float) -> list[Held]:
        """The summaries due now: at most one per project a minute, of what was held since the last."""
        due = []
        for project_id in list(self._held):
            if now - self._summed_at.get(project_id, float("-inf")) >= WINDOW_S:
                due.append(self._held.pop(project_id))
                self._summed_at[project_id] = now
        return due


def summary_text(held: Held, per_minute: int, public_url: str) -> tuple[str, str]:
    """(subject, text) of a summary: "412 jobs lost in project vision", and where to see them."""
    parts = [f"{n} jobs {condition}" for condition, n in held.counts.most_common()]
    head = f"{', '.join(parts)} in project {held.project}"
    text = (
        f"[SUMMARY] {head} (past {per_minute} alerts a minute a project, the rest are summed up here)\n"
        f"alerts: {public_url.rstrip('/')}/alerts"
    )
    return f"tpuwatch [SUMMARY] {head}"[:300], text


def fair_order(now_due, limit: int):
    """A SELECT of due delivery ids, round-robin across projects: each project's first, then each
    project's second, ...; ``now_due`` is the due condition (delivery.py)."""
    turn = func.row_number().over(partition_by=Alert.project_id, order_by=AlertDelivery.id).label("turn")
    ranked = (
        select(AlertDelivery.id.label("id"), turn)
        .join(Alert, Alert.id == AlertDelivery.alert_id)
        .where(now_due)
        .subquery()
    )
    return select(ranked.c.id).order_by(ranked.c.turn, ranked.c.id).limit(limit)
