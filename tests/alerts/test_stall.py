"""A job driven through the real agent stalls and recovers; a real webhook receiver counts messages."""

from __future__ import annotations

import shutil
import time

from tests.alerts.conftest import SteppingJob, fast
from tests.conftest import make_token, start_server
from tests.helpers import api, wait_for_job, wait_until
from tpuwatch.server.settings import Settings


def _hang_and_resume(server, sessions, webhook, tmp_path, hang_s: float, name: str):
    token = make_token(sessions)
    job = SteppingJob(server.url, token, name, tmp_path / "spool")
    try:
        with api(server.url, token) as c:
            wait_for_job(c, name)
            time.sleep(1.0)  # enough steps for the learned threshold
            last_step = job.hang()
            wait_until(lambda: webhook.firing(), timeout=hang_s)
            fired_after = webhook.times[0] - last_step
            assert wait_for_job(c, name)["status"] == "stalled"
            remaining = hang_s - (time.time() - last_step)
            time.sleep(max(0.0, remaining))
            job.resume()
            wait_until(lambda: webhook.resolved(), timeout=20)
            assert wait_for_job(c, name, "running")
            time.sleep(1.5)  # a second resolve or a late firing would arrive by now
            alerts = c.get("/api/v1/alerts").json()["alerts"]
    finally:
        job.close()
    return fired_after, alerts


def test_a_stalled_job_fires_once_and_resolves_once_when_steps_resume(settings, sessions, webhook, tmp_path):
    server = start_server(fast(settings, webhook.url))
    try:
        fired_after, alerts = _hang_and_resume(server, sessions, webhook, tmp_path, 5.0, "hangs")
    finally:
        server.stop()
    assert len(webhook.firing()) == 1, webhook.texts()
    assert len(webhook.resolved()) == 1, webhook.texts()
    assert len(webhook.bodies) == 2
    firing, resolved = webhook.bodies
    assert "resolved" not in str(firing).lower()
    assert "stalled" in firing["text"] and "http://tpuwatch.test/jobs/" in firing["text"]
    assert firing["blocks"][0]["type"] == "section"
    assert "resolved" in resolved["text"] and "steps resumed" in resolved["text"]
    # The floor, plus an evaluation round and a delivery (generous: the test machine is shared).
    assert 2.0 < fired_after < 2.0 + 8.0
    (alert,) = alerts
    assert alert["state"] == "resolved" and alert["condition"] == "stalled"


def test_acceptance_hang_of_45s_with_a_10s_floor_alerts_within_25s(tmp_path, sqlite_template, webhook):
    """The figures of the issue, end to end (on SQLite only: it takes a minute)."""
    shutil.copy(sqlite_template, tmp_path / "t.db")
    settings = Settings(db=f"sqlite:///{tmp_path / 't.db'}", data_dir=tmp_path / "data", secret_key="k")
    settings = fast(settings, webhook.url, stall_floor_seconds=10.0, alert_eval_seconds=1.0)
    from tpuwatch.server.db import make_engine, make_sessionmaker

    engine = make_engine(settings.database_url)
    server = start_server(settings)
    try:
        fired_after, _ = _hang_and_resume(
            server, make_sessionmaker(engine), webhook, tmp_path, 45.0, "hang45"
        )
    finally:
        server.stop()
        engine.dispose()
    assert len(webhook.firing()) == 1, webhook.texts()
    assert len(webhook.resolved()) == 1, webhook.texts()
    assert len(webhook.bodies) == 2
    assert fired_after <= 25.0
    print(f"acceptance: firing {fired_after:.1f} s after the last step")
