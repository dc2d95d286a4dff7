"""Every field the server reads from an event's data has a type (wire.EVENT_DATA), checked at ingest.

The review's case: an ingest-only token sent an exit event with ``{"code": "oops"}`` (or ``1.5``): it
was stored, and from then on the overview and ``/api/v1/jobs`` answered 500 for every viewer on
SQLite; ``{"code": [1, 2]}`` was a 500 on both databases (an agent retries a 5xx for ever, so the
batch blocked its spool), and PostgreSQL's 422 did not say which field.
"""

from __future__ import annotations

import time

import pytest
from sqlalchemy import update

from tests.conftest import make_token
from tests.helpers import api
from tpuwatch import wire
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Job, JobHost


def _batch(events: list, steps: list | None = None) -> dict:
    now = time.time()
    return {
        "stream": "s",
        "seq": 0,
        "run": {"run_id": "r", "job": "j"},
        "steps": steps if steps is not None else [[1, now, 0.1, 0.0]],
        "events": events,
    }


@pytest.mark.parametrize("code", ["oops", 1.5, [1, 2], {"a": 1}, True, 2**31, -(2**31) - 1])
def test_an_exit_code_that_is_no_int32_is_a_422_naming_the_field(live_server, sessions, code):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        r = c.post("/api/v1/ingest", json=_batch([[time.time(), "exit", "", {"code": code}]]))
        assert r.status_code == 422, r.text[:300]
        assert "data.code" in r.text and "'exit'" in r.text
        assert c.get("/api/v1/jobs").json()["jobs"] == []  # nothing of the batch was stored
        assert c.get("/").status_code == 200


@pytest.mark.parametrize(
    ("kind", "data", "field"),
    [
        ("exit", {"code": 0, "signal": ["SIGKILL"]}, "data.signal"),
        ("exit", {"code": None, "signal": "S" * 33}, "data.signal"),
        ("phase", {"name": "checkpoint", "state": "sideways"}, "data.state"),
        ("checkpoint", {"step": -1}, "data.step"),
        ("checkpoint", {"step": 10, "duration": "slow"}, "data.duration"),
        ("model_info", {"flops_per_step": "many"}, "data.flops_per_step"),
        ("model_info", {"total_steps": 2**60}, "data.total_steps"),
        ("epoch", {"epoch": 1, "logs": [1]}, "data.logs"),
    ],
)
def test_each_kind_has_its_fields_typed(live_server, sessions, kind, data, field):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        r = c.post("/api/v1/ingest", json=_batch([[time.time(), kind, "", data]]))
        assert r.status_code == 422, r.text[:300]
        assert field in r.text


def test_what_the_agent_sends_is_accepted_and_unknown_fields_are_kept(live_server, sessions):
    token = make_token(sessions)
    now = time.time()
    events = [
        [now, "start", "python train.py", {"argv": ["python", "train.py"], "sidecar_pid": 12}],
        [now, "phase", "checkpoint", {"name": "checkpoint", "state": "begin"}],
        [now, "checkpoint", "saved", {"step": 1, "path": "/tmp/c", "duration": 0.5, "mine": [1, "x"]}],
        [now, "exit", "SIGKILL", {"code": None, "signal": "SIGKILL"}],
        [now, "brand-new-kind", "", {"code": "anything"}],
    ]
    with api(live_server.url, token) as c:
        r = c.post("/api/v1/ingest", json=_batch(events))
        assert r.status_code == 200, r.text[:300]
        stored = c.get(f"/api/v1/jobs/{r.json()['job_id']}/events").json()["events"]
    assert {e["kind"] for e in stored} >= {"start", "checkpoint", "exit", "brand-new-kind"}
    assert next(e for e in stored if e["kind"] == "checkpoint")["data"]["mine"] == [1, "x"]


@pytest.mark.parametrize("step", [wire.MAX_STEP + 1, 2**63 - 1])
def test_step_numbers_past_2_to_the_53_are_refused(live_server, sessions, step):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        r = c.post("/api/v1/ingest", json=_batch([], steps=[[step, time.time(), 0.1, 0.0]]))
        assert r.status_code == 422, r.text[:300]
        r = c.post("/api/v1/ingest", json=_batch([], steps=[[wire.MAX_STEP, time.time(), 0.1, 0.0]]))
        assert r.status_code == 200, r.text[:300]


@pytest.mark.parametrize("bad", ["oops", 1.5, 9])
def test_pages_tolerate_an_exit_code_stored_before_ingest_typed_it(live_server, sessions, settings, bad):
    """SQLite keeps text in an INTEGER column: a row stored by an older server must not break pages."""
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        r = c.post("/api/v1/ingest", json=_batch([[time.time(), "exit", "", {"code": 1}]]))
        job_id = r.json()["job_id"]
        if settings.database_url.startswith("sqlite"):
            code, signal = bad, bad if bad == 9 else None
            with transaction(sessions) as s:
                s.execute(update(Job).where(Job.id == job_id).values(exit_code=code, exit_signal=signal))
                s.execute(update(JobHost).where(JobHost.job_id == job_id).values(exit_code=code))
        for path in ("/", "/api/v1/jobs", f"/jobs/{job_id}", f"/api/v1/jobs/{job_id}"):
            got = c.get(path)
            assert got.status_code == 200, (path, got.text[:300])
