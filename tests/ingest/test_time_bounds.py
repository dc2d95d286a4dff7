"""Times in a batch must lie in a window around the server's clock, and the pages format whatever a
database already holds without failing.

The review's case: one batch with a step at -1e12 s was stored, and from then on ``/``, the job page,
the post-mortem and its export answered 500 for everyone in the project (``year -29719 is out of
range`` in the date filter).
"""

from __future__ import annotations

import time

import pytest
from sqlalchemy import update

from tests.conftest import make_token
from tests.helpers import api
from tests.jobs import seed
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Event, Job, JobHost, Metric, Step

YEAR_9999 = 253_402_300_000.0
BAD_TIMES = [-1e12, 1e18, 1e308, YEAR_9999, 0.0]


def _pages(c, job_id: int) -> dict[str, int]:
    paths = [
        "/",
        "/fragments/jobs",
        f"/jobs/{job_id}",
        f"/jobs/{job_id}/postmortem",
        f"/jobs/{job_id}/postmortem.html?download=1",
        f"/jobs/{job_id}?format=json",
        f"/api/v1/jobs/{job_id}",
        f"/api/v1/jobs/{job_id}/steps",
        f"/api/v1/jobs/{job_id}/events",
        f"/api/v1/jobs/{job_id}/postmortem",
        "/api/v1/overview",
        "/alerts",
        "/triage",
        "/metrics",
    ]
    return {p: c.get(p, headers={"Accept": "text/html"}).status_code for p in paths}


@pytest.mark.parametrize("where", ["step", "event", "metric", "sent_at"])
@pytest.mark.parametrize("bad", BAD_TIMES)
def test_a_time_far_from_the_servers_clock_is_refused_with_422_naming_the_row(
    live_server, sessions, where, bad
):
    token = make_token(sessions)
    now = time.time()
    body = {"stream": "s", "seq": 0, "run": {"run_id": "r", "job": "clock"}, "steps": [[1, now, 0.1, 0.0]]}
    if where == "step":
        body["steps"].append([2, bad, 0.1, 0.0])
    elif where == "event":
        body["events"] = [[bad, "error", "RuntimeError: x", None]]
    elif where == "metric":
        body["metrics"] = [[bad, "tpu.hbm.used_bytes", 0, 1.0]]
    else:
        body["sent_at"] = bad
    with api(live_server.url, token) as c:
        r = c.post("/api/v1/ingest", json=body)
        assert r.status_code == 422, r.text
        assert "clock" in r.text and ("window" in r.text or "between" in r.text), r.text
        assert c.get("/api/v1/jobs").json()["jobs"] == []  # nothing of it was stored


def test_a_step_lasting_longer_than_the_window_cannot_move_the_jobs_start_out_of_range(live_server, sessions):
    token = make_token(sessions)
    body = {
        "stream": "s",
        "seq": 0,
        "run": {"run_id": "r", "job": "j"},
        "steps": [[1, time.time(), 1e308, 0.0]],
    }
    with api(live_server.url, token) as c:
        assert c.post("/api/v1/ingest", json=body).status_code == 422


def test_after_the_reviews_batch_every_page_of_the_project_still_answers(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        job_id = seed.failed_run(c)
        hostile = {
            "stream": "hostile",
            "seq": 0,
            "run": {"run_id": "fail-1", "job": "llama-oom", "host": 0},
            "steps": [[999, -1e12, 0.1, 0.0]],
        }
        assert c.post("/api/v1/ingest", json=hostile).status_code == 422
        codes = _pages(c, job_id)
    assert set(codes.values()) == {200}, codes


def test_pages_format_times_no_calendar_can_show_when_a_database_already_holds_them(live_server, sessions):
    """Data an older server stored before the window existed: the pages show it, they do not fail."""
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        job_id = seed.failed_run(c)
    with transaction(sessions) as s:
        s.execute(
            update(Job).where(Job.id == job_id).values(started_at=-1e12, ended_at=1e308, last_step_at=1e18)
        )
        s.execute(update(JobHost).where(JobHost.job_id == job_id).values(last_step_at=-1e12, ended_at=1e18))
        s.execute(update(Event).where(Event.job_id == job_id).values(ts=-1e12))
        s.execute(update(Metric).where(Metric.job_id == job_id).values(ts=1e18))
        s.execute(update(Step).where(Step.job_id == job_id, Step.step > 250).values(ts=-1e308))
    with api(live_server.url, token) as c:
        codes = _pages(c, job_id)
        html = c.get(f"/jobs/{job_id}").text
    assert set(codes.values()) == {200}, codes
    assert "out of range" in html


def test_the_window_is_a_setting(settings, sessions):
    from tests.conftest import start_server

    server = start_server(settings.model_copy(update={"ingest_max_age_days": 3650.0}))
    try:
        token = make_token(sessions)
        ten_years_ago = time.time() - 9 * 365 * 86400
        body = {
            "stream": "s",
            "seq": 0,
            "run": {"run_id": "r", "job": "old"},
            "steps": [[1, ten_years_ago, 0.1, 0]],
        }
        with api(server.url, token) as c:
            assert c.post("/api/v1/ingest", json=body).status_code == 200
    finally:
        server.stop()
