"""The alert loop: a thread started with the app that evaluates and delivers while it leads.

Every server process runs the loop; only the leader (leader.py) does any work, so several
replicas on one PostgreSQL send each notification once. The work is blocking database and
network I/O with timeouts, so it runs in a thread of its own rather than on the event loop.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid

from sqlalchemy.orm import Session, sessionmaker

from tpuwatch.server.alerts.delivery import deliver_due
from tpuwatch.server.alerts.evaluator import Evaluator
from tpuwatch.server.alerts.leader import Leadership
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest import keys
from tpuwatch.server.series import partitions
from tpuwatch.server.settings import Settings

log = logging.getLogger("tpuwatch.alerts")
PARTITIONS_EVERY_S = 3600.0  # the leader makes sure the next days' step partitions exist (and
# prunes batch keys past the ingest window) this often


class AlertRunner:
    """One evaluation and delivery pass per ``tick()``; the loop thread calls it on a timer."""

    def __init__(self, factory: sessionmaker[Session], settings: Settings) -> None:
        self.factory = factory
        self.settings = settings
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.leadership = Leadership(settings.database_url)
        self.evaluator = Evaluator(settings)
        self.leading = False
        self.partitions_at = float("-inf")

    def tick(self) -> bool:
        """Evaluate and deliver if this process leads; returns whether it did."""
        leading = self.leadership.ensure()
        if leading and not self.leading:
            log.info("alert loop: %s is the alert sender now", self.owner)
            self.evaluator = Evaluator(self.settings)  # caches may be stale after a gap
        self.leading = leading
        if not leading:
            return False
        if time.monotonic() - self.partitions_at > PARTITIONS_EVERY_S:
            with transaction(self.factory) as session:
                made = partitions.ensure(session.connection())
            if made:
                log.info("steps: created partitions %s", ", ".join(made))
            st = self.settings
            gone = keys.prune_past_window(self.factory, st.ingest_max_age_days, st.ingest_max_ahead_seconds)
            if gone:
                log.info("ingest: pruned %d batch-key rows past the ingest window", gone)
            self.partitions_at = time.monotonic()
        with transaction(self.factory) as session:
            self.evaluator.evaluate(session, time.time())
        deliver_due(
            self.factory, self.settings, self.owner, budget_s=max(2.0, self.settings.alert_eval_seconds)
        )
        return True

    def close(self) -> None:
        self.leadership.release()


class AlertLoop:
    """The background thread. ``stop()`` returns within about one send timeout."""

    def __init__(self, runner: AlertRunner, interval: float) -> None:
        self.runner = runner
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tpuwatch-alerts", daemon=True)

    def start(self) -> AlertLoop:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.runner.tick()
            except Exception:
                log.exception("alert loop: evaluation failed; trying again next round")
            self._stop.wait(self.interval)
        self.runner.close()

    def stop(self, timeout: float = 15.0) -> None:
        self._stop.set()
        self._thread.join(timeout)


def start_alert_loop(app) -> AlertLoop:
    """Start the loop for ``app`` (after its sessions exist); the lifespan stops it."""
    settings: Settings = app.state.settings
    runner = AlertRunner(app.state.sessions, settings)
    return AlertLoop(runner, settings.alert_eval_seconds).start()
