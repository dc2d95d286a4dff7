"""The straggler alert and the device's part of the stall alert, kept out of evaluator.py.

A straggler (app/device/straggler.py) alerts once it has been the same host for
``straggler_persist_seconds`` (one noisy window names nobody), and resolves when no host stands
out. The tracker keeps only that "since when" in memory: a new leader starts counting again.

A stall that fires asks every host for its cores' state (app/device/asks.py); when the answers
are in, the alert says where the cores are, and is sent again once with that news.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from tpuwatch.server.device import asks, cores
from tpuwatch.server.device.straggler import stragglers
from tpuwatch.server.models import Job

CONDITION = "straggler"
RECOVERY = "no host stands out any more"
RECHECK_S = 15.0  # the device evidence is read again at most this often per job


class StragglerTracker:
    def __init__(self, settings) -> None:
        self.settings = settings
        self._since: dict[int, tuple[tuple[int, str], float]] = {}  # job -> ((host, kind), since)
        self._checked: dict[int, tuple[float, list[str]]] = {}  # job -> (when, lines)

    def lines(self, session: Session, job: Job, now: float) -> list[str]:
        """The straggler lines of a persistent straggler (empty when none, or not for long yet)."""
        checked = self._checked.get(job.id)
        if checked is not None and 0 <= now - checked[0] < RECHECK_S:
            return checked[1]
        found = stragglers(session, job, now, self.settings.straggler_window_seconds)
        out: list[str] = []
        if found:
            key = (found[0].host, found[0].kind)
            prev = self._since.get(job.id)
            since = prev[1] if prev is not None and prev[0] == key else now
            self._since[job.id] = (key, since)
            if now - since >= self.settings.straggler_persist_seconds:
                minutes = (now - since) / 60
                out = [f"{found[0].line} (for {minutes:.0f} min)" if minutes >= 1 else found[0].line]
        else:
            self._since.pop(job.id, None)
        self._checked[job.id] = (now, out)
        return out

    def forget(self, live: set[int]) -> None:
        self._since = {k: v for k, v in self._since.items() if k in live}
        self._checked = {k: v for k, v in self._checked.items() if k in live}


def judge_straggler(lines: list[str]) -> tuple[str, str, dict] | None:
    """``(condition, summary, details)`` for a persistent straggler, else None."""
    if not lines:
        return None
    host = lines[0].split(" is the ", 1)[0]
    kind = "input" if "input straggler" in lines[0] else "compute"
    summary = f"{host} holds the slice back ({kind} straggler)\n" + "\n".join(lines)
    return CONDITION, summary, {"straggler": lines}


def core_lines(session: Session, job_id: int, now: float) -> list[str]:
    view = cores.core_view(session, job_id, now)
    return view.lines if view is not None else []


def ask_cores_on_stall(session: Session, job_id: int, condition: str, now: float) -> None:
    if condition == "stalled":
        asks.ask(session, job_id, "stall", now)


def core_news(verdict_details: dict, alert_details: dict | None) -> bool:
    """The cores' state arrived (or changed) since the alert last spoke."""
    new = verdict_details.get("cores")
    return bool(new) and new != (alert_details or {}).get("cores")
