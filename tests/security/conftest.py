"""Two projects on one live server, each with a job that has steps, an error and HBM samples."""

from __future__ import annotations

import time
from dataclasses import dataclass

import pytest

from tests.conftest import make_token
from tests.helpers import api
from tpuwatch.wire import MetricName

T0 = time.time() - 86400  # a day ago: inside the window of times ingest accepts


def batch(run_id: str, job: str, error: str, seq: int = 0, steps: int = 5) -> dict:
    return {
        "v": 1,
        "stream": f"stream-{run_id}",
        "seq": seq,
        "run": {"run_id": run_id, "job": job, "host": 0, "attrs": {"hostname": f"host-{job}"}},
        "steps": [[i + 1, T0 + i, 0.2, 0.05] for i in range(steps)],
        "events": [[T0 + 10, "error", error, {"source": "traceback"}]],
        "metrics": [
            [T0 + 10, MetricName.HBM_USED, 0, 12e9],
            [T0 + 10, MetricName.HBM_TOTAL, 0, 16e9],
        ],
    }


@dataclass
class Project:
    name: str
    token: str
    job_id: int
    job: str
    run_id: str
    secret: str  # text that only this project's data contains
    alert_id: int = 0
    channel_id: int = 0


@dataclass
class TwoProjects:
    url: str
    a: Project
    b: Project


def _project(url: str, sessions, name: str) -> Project:
    token = make_token(sessions, project=name)
    job, run_id, secret = f"job-of-{name}", f"run-of-{name}", f"SECRET-{name.upper()}-7f3a"
    with api(url, token) as c:
        r = c.post("/api/v1/ingest", json=batch(run_id, job, f"RuntimeError: {secret}"))
        assert r.status_code == 200, r.text
        job_id = r.json()["job_id"]
        channel = c.post(
            "/api/v1/alerts/channels",
            json={"kind": "webhook", "target": f"https://hooks.example.invalid/{secret}"},
        )
        assert channel.status_code == 201, channel.text
    return Project(
        name, token, job_id, job, run_id, secret, _alert(sessions, job_id, secret), channel.json()["id"]
    )


def _alert(sessions, job_id: int, secret: str) -> int:
    """An open alert on the job, as the evaluator would raise it."""
    import time

    from tpuwatch.server.db import transaction
    from tpuwatch.server.models import Alert, Job

    with transaction(sessions) as s:
        job = s.get(Job, job_id)
        now = time.time()
        alert = Alert(
            job_id=job_id,
            project_id=job.project_id,
            condition="stalled",
            state="firing",
            summary=f"stalled: {secret}",
            details={},
            started_at=now,
            updated_at=now,
        )
        s.add(alert)
        s.flush()
        return alert.id


@pytest.fixture
def two_projects(live_server, sessions) -> TwoProjects:
    return TwoProjects(
        live_server.url,
        _project(live_server.url, sessions, "alpha"),
        _project(live_server.url, sessions, "beta"),
    )
