"""Asking every host of a job to read its cores' state once.

The server cannot reach an agent; it answers every ingest request of the job's hosts with
``X-Tpuwatch-Ask: core_state=<ask id>`` while the ask is fresh (``FRESH_S``), and each agent acts
once per id (agent/asks.py). An ask is a row (``device_asks``), so every replica behind a load
balancer answers with it: each process keeps a board of the fresh asks, read again from the
database at most every ``REFRESH_S`` seconds in a thread of its own, so an ingest answer never waits
for it. An ask this process made is on its board at once.

>>> board = AskBoard(sessions=None, clock=lambda: 100.0)
>>> board.note(job_id=7, ask_id=3, asked_at=95.0)
>>> board.header_for(7), board.header_for(8)
('core_state=3', None)
"""

from __future__ import annotations

import logging
import threading
import time

from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.db import transaction
from tpuwatch.server.errors import DomainError
from tpuwatch.server.models import DeviceAsk
from tpuwatch.wire import Ask

log = logging.getLogger("tpuwatch.device")

FRESH_S = 120.0  # hosts hear an ask this long (a host between batches, or backing off, still hears it)
REFRESH_S = 1.0
BUTTON_GAP_S = 60.0  # the page's button asks at most once a minute per job


class TooSoon(DomainError):
    status_code = 429


def ask(session: Session, job_id: int, reason: str, now: float | None = None, gap: float = 0.0) -> DeviceAsk:
    """Record an ask for the job's cores' state; raises TooSoon within ``gap`` of the last one."""
    now = time.time() if now is None else now
    if gap > 0:
        last = last_ask(session, job_id)
        if last is not None and now - last.asked_at < gap:
            ago = now - last.asked_at
            raise TooSoon(f"the cores' state was asked for {ago:.0f} s ago: ask again in {gap - ago:.0f} s")
    row = DeviceAsk(job_id=job_id, asked_at=now, reason=reason)
    session.add(row)
    session.flush()
    return row


def last_ask(session: Session, job_id: int) -> DeviceAsk | None:
    return session.scalar(
        select(DeviceAsk).where(DeviceAsk.job_id == job_id).order_by(DeviceAsk.asked_at.desc()).limit(1)
    )


class AskBoard:
    """The fresh asks, by job, as this process knows them."""

    def __init__(self, sessions, clock=time.time) -> None:
        self.sessions = sessions
        self.clock = clock
        self._asks: dict[int, tuple[int, float]] = {}  # job id -> (ask id, asked at)
        self._read_at = float("-inf")
        self._reading = threading.Lock()

    def note(self, job_id: int, ask_id: int, asked_at: float) -> None:
        current = self._asks.get(job_id)
        if current is None or current[1] <= asked_at:
            self._asks[job_id] = (ask_id, asked_at)

    def header_for(self, job_id: int) -> str | None:
        """The ask header for an answer to one of the job's hosts (None when nothing is asked)."""
        now = self.clock()
        if self.sessions is not None and now - self._read_at > REFRESH_S:
            self._read_at = now
            if self._reading.acquire(blocking=False):  # one reader at a time; answers never wait
                threading.Thread(target=self._read, name="tpuwatch-asks", daemon=True).start()
        found = self._asks.get(job_id)
        if found is None or now - found[1] > FRESH_S:
            return None
        return f"{Ask.CORE_STATE}={found[0]}"

    def _read(self) -> None:
        try:
            since = self.clock() - FRESH_S
            with transaction(self.sessions) as s:
                q = select(DeviceAsk.job_id, DeviceAsk.id, DeviceAsk.asked_at)
                rows = s.execute(q.where(DeviceAsk.asked_at > since)).all()
            fresh: dict[int, tuple[int, float]] = {}
            for job_id, ask_id, at in rows:
                if job_id not in fresh or fresh[job_id][1] <= at:
                    fresh[job_id] = (ask_id, at)
            for job_id, (ask_id, at) in fresh.items():
                self.note(job_id, ask_id, at)
            for job_id in [j for j, (_, at) in self._asks.items() if at < since]:
                self._asks.pop(job_id, None)
        except Exception as exc:  # a busy database: the board stays as it was, ingest goes on
            log.warning("could not read the cores' state asks: %s", exc)
        finally:
            self._reading.release()
