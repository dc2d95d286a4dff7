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


class PassTiming:
    """How long the leader's passes take (``/healthz`` shows it): a pass longer than the loop's
    interval means alerts come late, and says so in the log once a minute at most.

    >>> t = PassTiming(interval=5.0)
    >>> t.passed(0.2, 0.3, jobs=100); t.report()["last_pass_s"]
    0.3
    """

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.passes = 0
        self.jobs = 0
        self.last = self.worst = self.evaluate = 0.0
        self._warned = float("-inf")

    def passed(self, evaluate_s: float, total_s: float, jobs: int) -> None:
        self.passes += 1
        self.jobs, self.evaluate, self.last = jobs, evaluate_s, total_s
        self.worst = max(self.worst, total_s)
        if total_s > self.interval and time.monotonic() - self._warned > 60.0:
            self._warned = time.monotonic()
            log.warning(
                "alert loop: a pass over %d jobs took %.1f s (evaluating %.1f s), over its %g s interval",
                jobs,
                total_s,
                evaluate_s,
                self.interval,
            )

    def report(self) -> dict:
        return {
            "passes": self.passes,
            "jobs": self.jobs,
            "last_pass_s": round(self.last, 3),
            "last_evaluation_s": round(self.evaluate, 3),
            "worst_pass_s": round(self.worst, 3),
            "interval_s": self.interval,
        }


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
        self.timing = PassTiming(settings.alert_eval_seconds)

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
        started = time.monotonic()
        with transaction(self.factory) as session:
            self.evaluator.evaluate(session, time.time())
        with transaction(self.factory) as session:
            self.evaluator.write_bars(session)
        evaluated = time.monotonic() - started
        deliver_due(
            self.factory, self.settings, self.owner, budget_s=max(2.0, self.settings.alert_eval_seconds)
        )
        self.timing.passed(evaluated, time.monotonic() - started, self.evaluator.judged)
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
    app.state.alert_timing = runner.timing
    return AlertLoop(runner, settings.alert_eval_seconds).start()
