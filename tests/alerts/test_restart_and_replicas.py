"""Alert state lives in the database: a restart sends no duplicate, and several server processes on
one PostgreSQL send each notification once."""

from __future__ import annotations

import time

import pytest

from tests.alerts.conftest import SteppingJob, fast
from tests.conftest import _truncate_all, make_token, start_server
from tests.helpers import api, wait_for_job, wait_until


def test_a_restart_while_an_alert_fires_sends_no_duplicate_and_the_resolve_still_arrives(
    settings, sessions, webhook, tmp_path
):
    s = fast(settings, webhook.url)
    token = make_token(sessions)
    first = start_server(s)
    job = SteppingJob(first.url, token, "restarts", tmp_path / "spool1")
    try:
        with api(first.url, token) as c:
            wait_for_job(c, "restarts")
        time.sleep(1.0)
        job.hang()
        wait_until(lambda: webhook.firing(), timeout=20)
    finally:
        job.close()
        first.stop()
    second = start_server(s)
    resumed = None
    try:
        time.sleep(2.0)  # several evaluation rounds of the new server while the job is still stalled
        assert len(webhook.bodies) == 1, webhook.texts()
        resumed = SteppingJob(second.url, token, "restarts", tmp_path / "spool2", run_id=job.mon.run_id)
        wait_until(lambda: webhook.resolved(), timeout=20)
        time.sleep(1.0)
        with api(second.url, token) as c:
            assert wait_for_job(c, "restarts")["status"] == "running"
            (alert,) = c.get("/api/v1/alerts").json()["alerts"]
    finally:
        if resumed is not None:
            resumed.close()
        second.stop()
    assert len(webhook.firing()) == 1 and len(webhook.resolved()) == 1, webhook.texts()
    assert len(webhook.bodies) == 2
    assert alert["state"] == "resolved"


@pytest.fixture
def pg_settings(request, tmp_path):
    url = request.getfixturevalue("pg_database")
    from tpuwatch.server.settings import Settings

    yield Settings(db=url, data_dir=tmp_path / "data", secret_key="test-secret-key")
    _truncate_all(url)


def test_two_server_processes_on_one_postgresql_send_each_notification_once(pg_settings, webhook, tmp_path):
    """Two real `tpuwatch server` processes, each running the alert loop; the job's agent sends to
    one, the other could evaluate just as well: only the advisory-lock holder sends."""
    from tests.alerts.procs import server_process
    from tpuwatch.server.db import make_engine, make_sessionmaker

    env = {
        "TPUWATCH_ALERT_EVAL_SECONDS": "0.3",
        "TPUWATCH_STALL_FLOOR_SECONDS": "2",
        "TPUWATCH_ALERT_WEBHOOK_URL": webhook.url,
        "TPUWATCH_SECRET_KEY": "k",
        "TPUWATCH_ALERT_REPEAT_SECONDS": "3",  # repeats too: each must arrive once
    }
    engine = make_engine(pg_settings.database_url)
    token = make_token(make_sessionmaker(engine))
    engine.dispose()
    url = pg_settings.database_url
    with server_process(url, tmp_path / "a", env) as a_url, server_process(url, tmp_path / "b", env) as b_url:
        job = SteppingJob(a_url, token, "replicas", tmp_path / "spool")
        try:
            with api(b_url, token) as c:
                wait_for_job(c, "replicas")
                time.sleep(1.0)
                job.hang()
                wait_until(lambda: webhook.firing(), timeout=20)
                time.sleep(4.5)  # one repeat is due
                job.resume()
                wait_until(lambda: webhook.resolved(), timeout=20)
                time.sleep(1.5)
                (alert,) = c.get("/api/v1/alerts").json()["alerts"]
                detail = c.get(f"/api/v1/alerts/{alert['id']}").json()
        finally:
            job.close()
    texts = webhook.texts()
    assert len(webhook.firing()) == 1, texts
    assert len(webhook.resolved()) == 1, texts
    repeats = [t for t in texts if "[STILL FIRING]" in t]
    assert len(repeats) >= 1 and "resolved" not in " ".join(repeats)
    assert len(texts) == 2 + len(repeats)
    kinds = [d["kind"] for d in detail["deliveries"]]
    assert kinds == ["firing", *["repeat"] * len(repeats), "resolved"]
    assert all(d["status"] == "sent" and d["attempts"] == 1 for d in detail["deliveries"])
