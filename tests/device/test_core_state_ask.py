"""The button on a stalled job's page: it asks every host for its cores' state, at most once a
minute, and only for a stalled job; the hosts hear the ask in the answers to their batches."""

from __future__ import annotations

import time

from sqlalchemy import update

from tests.conftest import make_token
from tests.helpers import api
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Job


def _batch(seq: int, steps: bool = True) -> dict:
    now = time.time()
    return {
        "stream": "btn-0",
        "seq": seq,
        "run": {"run_id": "btn", "job": "btn", "host": 0},
        "steps": [[seq + 1, now, 0.5, 0.01]] if steps else [],
        "events": [[now, "device", "", {"c": [0], "s": {"tpu.runtime.tensorcore.dutycycle.percent": [3.0]}}]],
    }


def test_the_button_asks_a_stalled_jobs_hosts_once_a_minute(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        first = c.post("/api/v1/ingest", json=_batch(0))
        job_id = first.json()["job_id"]
        assert "x-tpuwatch-ask" not in first.headers
        running = c.post(f"/api/v1/jobs/{job_id}/device/core-state")
        assert running.status_code == 409 and "not stalled" in running.json()["detail"]
        with transaction(sessions) as s:
            # What the evaluator stores when no step came for longer than the job's threshold.
            s.execute(
                update(Job).where(Job.id == job_id).values(status="stalled", last_step_at=time.time() - 600)
            )
        asked = c.post(f"/api/v1/jobs/{job_id}/device/core-state")
        assert asked.status_code == 202 and asked.json()["asked_at"] > 0
        again = c.post(f"/api/v1/jobs/{job_id}/device/core-state")
        assert again.status_code == 429 and "ask again in" in again.json()["detail"]
        answer = c.post("/api/v1/ingest", json=_batch(1, steps=False))  # a heartbeat
        assert answer.headers["x-tpuwatch-ask"].startswith("core_state=")
        page = c.get(f"/jobs/{job_id}").text
    assert 'id="core-state-ask"' in page and "Read the cores' state now" in page
