"""Slowdown alerts, driven by synthetic step streams through the real ingest into the real database
and judged by the real evaluator with a synthetic clock (the rule's minutes would make a slow test);
then once end to end through the real loop and a real agent, with thresholds scaled down.

Stream: steps every 0.5 s; an evaluation every 5 s of synthetic time (the default
``alert_eval_seconds``), with the default slowdown settings (a 60 s window, ratio 1.5).
"""

from __future__ import annotations

import time

from sqlalchemy import select

from tests.alerts.conftest import SteppingJob, fast
from tests.conftest import make_token, start_server
from tests.helpers import api, wait_for_job, wait_until
from tpuwatch.server.alerts.evaluator import Evaluator
from tpuwatch.server.auth.principal import Principal
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest.schemas import Batch
from tpuwatch.server.ingest.service import ingest
from tpuwatch.server.models import Alert
from tpuwatch.server.tokens.service import get_or_create_project

EVERY = 5.0  # seconds of synthetic time between evaluations


class Stream:
    """A job's steps and events, ingested as time passes and judged after each batch."""

    def __init__(self, sessions, settings, name: str, start: float) -> None:
        with transaction(sessions) as s:
            project = get_or_create_project(s, "team-a")
            self.principal = Principal(project_id=project.id, project="team-a")
        self.sessions, self.name, self.now = sessions, name, start
        self.seq = 0
        self.step = 0
        self.evaluator = Evaluator(settings)
        self.actions: list[tuple[float, str, int]] = []
        self._send([], [(start, "start", "python train.py", {})])

    def _send(self, steps, events) -> None:
        batch = Batch(
            stream=self.name,
            seq=self.seq,
            run={"run_id": self.name, "job": self.name},
            steps=steps,
            events=events,
        )
        self.seq += 1
        with transaction(self.sessions) as s:
            ingest(s, self.principal, batch)

    def run(self, seconds: float, interval: float, wait: float = 0.0, events=()) -> None:
        """Steps every ``interval`` s (``wait`` of it input wait) for ``seconds``, judged every 5 s."""
        end = self.now + seconds
        pending = list(events)
        t = self.now
        while self.now < end - 1e-9:
            tick = min(end, self.now + EVERY)
            steps = []
            while t + interval <= tick + 1e-9:
                t += interval
                self.step += 1
                steps.append((self.step, t, interval - wait, wait))
            due = [e for e in pending if e[0] <= tick]
            pending = [e for e in pending if e[0] > tick]
            self._send(steps, due)
            self.now = tick
            with transaction(self.sessions) as s:
                for alert_id, action in self.evaluator.evaluate(s, self.now):
                    self.actions.append((self.now, action, alert_id))

    def pause(self, seconds: float, events=()) -> None:
        """No steps for ``seconds`` (a compile or a checkpoint save), events as they happen."""
        self.run(seconds, interval=seconds * 10, events=events)

    def alerts(self) -> list[Alert]:
        with transaction(self.sessions) as s:
            return list(s.scalars(select(Alert).order_by(Alert.id)))


def test_step_time_doubling_for_three_minutes_fires_one_slowdown_within_two_minutes_and_one_resolve(
    settings, sessions
):
    start = time.time() - 3600
    job = Stream(sessions, settings, "slows", start)
    job.run(600, 0.5, wait=0.05)  # ten minutes at the usual speed
    began = job.now
    job.run(180, 1.0, wait=0.55)  # three minutes at twice the step time: the input pipeline
    recovered = job.now
    job.run(600, 0.5, wait=0.05)
    assert [a for _, a, _ in job.actions] == ["fired", "resolved"], job.actions
    (fired_at, _, _), (resolved_at, _, _) = job.actions
    assert began < fired_at <= began + 120
    assert recovered < resolved_at <= recovered + 120
    (alert,) = job.alerts()
    assert alert.condition == "slowdown" and alert.state == "resolved"
    assert "2.0x the job's usual" in alert.summary
    assert "input wait rose" in alert.summary
    assert abs(alert.details["since"] - began) <= 5


def test_a_three_minute_compile_and_a_one_minute_checkpoint_raise_nothing(settings, sessions):
    start = time.time() - 3600
    job = Stream(sessions, settings, "compiles", start)
    job.pause(180)  # the first step compiles for three minutes
    job.run(1, 1)
    job.run(480, 0.5)
    t = job.now
    job.pause(
        60,
        events=[
            (t, "phase", "checkpoint", {"name": "checkpoint", "state": "begin"}),
            (t + 60, "phase", "checkpoint", {"name": "checkpoint", "state": "end"}),
        ],
    )
    job.run(600, 0.5)
    assert job.actions == []
    assert job.alerts() == []


def test_slowdown_end_to_end_through_the_alert_loop_with_scaled_thresholds(
    settings, sessions, webhook, tmp_path
):
    """The real loop, server, agent and webhook; the 60 s window scaled to 2 s (30x), evaluation
    every 0.3 s instead of 5 s."""
    s = fast(settings, webhook.url, slowdown_window_seconds=2.0, stall_floor_seconds=30.0)
    server = start_server(s)
    token = make_token(sessions)
    job = SteppingJob(server.url, token, "slows-live", tmp_path / "spool", every=0.04)
    try:
        with api(server.url, token) as c:
            wait_for_job(c, "slows-live")
            time.sleep(4.0)  # the usual speed, learned from the rollups
            # 5x slower: far past the threshold even when other tests load the machine (their load
            # makes the usual steps jitter, and usual + 6 MAD then reached a 2.5x slowdown)
            job.every = 0.2
            wait_until(lambda: webhook.firing(), timeout=15)
            time.sleep(2.0)
            job.every = 0.04
            wait_until(lambda: webhook.resolved(), timeout=15)
            time.sleep(1.0)
            alerts = c.get("/api/v1/alerts").json()["alerts"]
    finally:
        job.close()
        server.stop()
    assert len(webhook.firing()) == 1 and len(webhook.resolved()) == 1, webhook.texts()
    assert "slowed down" in webhook.bodies[0]["text"]
    (alert,) = alerts
    assert alert["condition"] == "slowdown" and alert["state"] == "resolved"
