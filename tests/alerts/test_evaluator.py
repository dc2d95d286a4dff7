"""The evaluator and the sender against the real database, with a synthetic clock: claims,
retries, and two evaluators racing (as two leaders briefly could)."""

from __future__ import annotations

import time

from sqlalchemy import select, update

from tests.alerts.conftest import fast
from tpuwatch.server.alerts.delivery import claim, deliver_due
from tpuwatch.server.alerts.evaluator import Evaluator
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Alert, AlertDelivery, Job
from tpuwatch.server.tokens.service import get_or_create_project


def _job(sessions, name="bert", last_step_ago=60.0) -> int:
    now = time.time()
    with transaction(sessions) as s:
        project = get_or_create_project(s, "team-a")
        job = Job(
            project_id=project.id,
            run_id=name,
            name=name,
            status="running",
            started_at=now - 600,
            last_seen_at=now,
            steps=100,
            last_step=100,
            last_step_at=now - last_step_ago,
            errors=0,
            dropped_events=0,
            attrs={},
        )
        s.add(job)
        s.flush()
        return job.id


def _deliveries(sessions) -> list[AlertDelivery]:
    with transaction(sessions) as s:
        return list(s.scalars(select(AlertDelivery).order_by(AlertDelivery.id)))


def test_two_evaluators_racing_open_one_alert_and_enqueue_one_message(settings, sessions, webhook):
    s = fast(settings, webhook.url)
    job_id = _job(sessions)
    a, b = Evaluator(s), Evaluator(s)
    with transaction(sessions) as sa:
        assert [x[1] for x in a.evaluate(sa)] == ["fired"]
    with transaction(sessions) as sb:
        assert b.evaluate(sb) == []  # sees the open alert: nothing to do
    with transaction(sessions) as sess:
        alerts = sess.scalars(select(Alert)).all()
        assert len(alerts) == 1 and alerts[0].job_id == job_id
        assert sess.get(Job, job_id).status == "stalled"
    assert [d.kind for d in _deliveries(sessions)] == ["firing"]


def test_a_delivery_is_claimed_once(settings, sessions, webhook):
    _job(sessions)
    with transaction(sessions) as s:
        Evaluator(fast(settings, webhook.url)).evaluate(s)
    (d,) = _deliveries(sessions)
    now = time.time()
    with transaction(sessions) as s:
        assert claim(s, d.id, "one", now) is not None
    with transaction(sessions) as s:
        assert claim(s, d.id, "two", now) is None  # within the lease nobody else may send it


def test_a_failed_webhook_is_retried_with_backoff_and_sent_once(settings, sessions, webhook):
    s = fast(settings, webhook.url)
    _job(sessions)
    with transaction(sessions) as sess:
        Evaluator(s).evaluate(sess)
    webhook.fail_next = 1
    assert deliver_due(sessions, s, "me") == 0
    (d,) = _deliveries(sessions)
    assert d.status == "pending" and d.attempts == 1 and "HTTP 500" in d.last_error
    assert d.next_attempt_at > time.time()
    assert deliver_due(sessions, s, "me") == 0  # not due yet
    with transaction(sessions) as sess:
        sess.execute(update(AlertDelivery).values(next_attempt_at=0))
    assert deliver_due(sessions, s, "me") == 1
    (d,) = _deliveries(sessions)
    assert d.status == "sent" and d.attempts == 2
    assert len(webhook.bodies) == 1


def test_an_unreachable_webhook_is_retried_later_without_holding_the_loop(settings, sessions):
    s = fast(settings, "http://127.0.0.1:9/definitely-closed", alert_delivery_timeout=1.0)
    _job(sessions)
    with transaction(sessions) as sess:
        Evaluator(s).evaluate(sess)
    started = time.monotonic()
    assert deliver_due(sessions, s, "me") == 0
    assert time.monotonic() - started < 3
    (d,) = _deliveries(sessions)
    assert d.status == "pending" and "unreachable" in d.last_error  # a network error: retried later


def test_repeats_follow_the_interval_and_stop_once_acknowledged(settings, sessions, webhook):
    s = fast(settings, webhook.url, alert_repeat_seconds=100.0, lost_after_seconds=1e6)
    _job(sessions)
    ev = Evaluator(s)
    now = time.time()
    with transaction(sessions) as sess:
        ev.evaluate(sess, now)
    with transaction(sessions) as sess:
        assert ev.evaluate(sess, now + 50) == []
    with transaction(sessions) as sess:
        assert [x[1] for x in ev.evaluate(sess, now + 101)] == ["repeat"]
    with transaction(sessions) as sess:
        sess.execute(update(Alert).values(acked_at=now + 102))
    with transaction(sessions) as sess:
        assert ev.evaluate(sess, now + 500) == []
    assert [d.kind for d in _deliveries(sessions)] == ["firing", "repeat"]


def test_an_alert_fired_and_resolved_while_silenced_sends_nothing_more(settings, sessions, webhook):
    s = fast(settings, webhook.url, alert_repeat_seconds=10.0, lost_after_seconds=1e6)
    job_id = _job(sessions)
    ev = Evaluator(s)
    now = time.time()
    with transaction(sessions) as sess:
        ev.evaluate(sess, now)
        sess.execute(update(Alert).values(silenced_until=now + 1000))
    with transaction(sessions) as sess:
        assert ev.evaluate(sess, now + 100) == []  # no repeat while silenced
        sess.execute(update(Job).where(Job.id == job_id).values(last_step_at=now + 101, last_step=101))
    with transaction(sessions) as sess:
        assert [x[1] for x in ev.evaluate(sess, now + 102)] == ["resolved"]
    # The firing was heard before the silence, so its resolve is sent.
    assert [d.kind for d in _deliveries(sessions)] == ["firing", "resolved"]


def test_a_webhook_answering_404_is_given_up_without_retries(settings, sessions, webhook):
    s = fast(settings, webhook.url.replace("/hook", "/") + "nope")
    _job(sessions)
    with transaction(sessions) as sess:
        Evaluator(s).evaluate(sess)
    webhook.status = 404
    assert deliver_due(sessions, s, "me") == 0
    (d,) = _deliveries(sessions)
    assert d.status == "failed" and d.attempts == 1 and "HTTP 404" in d.last_error


def _add(sessions, *rows):
    with transaction(sessions) as s:
        s.add_all(rows)


def test_hang_lines_and_device_idle_from_the_database_go_into_the_alert(settings, sessions, webhook):
    from tpuwatch.server.models import Event, Metric

    job_id = _job(sessions, last_step_ago=3.0)
    now = time.time()
    line = "E1122 12:00:01 tpu_execute.cc:88] TPU Execute is taking a long time (>60s)"
    _add(
        sessions,
        Event(
            job_id=job_id, host_index=0, ts=now - 1, kind="hang_hint", message=line, data={"stream": "stderr"}
        ),
        Metric(job_id=job_id, host_index=0, chip=0, name="tpu.duty_cycle_pct", ts=now - 1, value=0.0),
    )
    with transaction(sessions) as s:
        ev = Evaluator(fast(settings, webhook.url))
        assert [x[1] for x in ev.evaluate(s, now)] == ["fired"]
        (alert,) = s.scalars(select(Alert)).all()
    assert "TPU Execute is taking a long time" in alert.summary
    assert "duty cycle at most 0%" in alert.summary


def test_an_open_checkpoint_phase_holds_the_alert_and_a_preemption_raises_one(settings, sessions, webhook):
    from tpuwatch.server.models import Event

    job_id = _job(sessions, last_step_ago=60.0)
    now = time.time()
    begin = dict(name="checkpoint", state="begin")
    _add(
        sessions,
        Event(job_id=job_id, host_index=0, ts=now - 59, kind="phase", message="checkpoint", data=begin),
    )
    ev = Evaluator(fast(settings, webhook.url))
    with transaction(sessions) as s:
        assert ev.evaluate(s, now) == []
    state = dict(state="PREEMPTED", health="", likely_cause="spot VM reclaimed")
    _add(sessions, Event(job_id=job_id, host_index=0, ts=now, kind="node_state", message="", data=state))
    with transaction(sessions) as s:
        assert [x[1] for x in ev.evaluate(s, now + 1)] == ["fired"]
        (alert,) = s.scalars(select(Alert)).all()
    assert alert.condition == "preempted" and "spot VM reclaimed" in alert.summary
