"""Two projects on one live server, each with a job that has steps, an error and HBM samples."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.conftest import make_token
from tests.helpers import api


def batch(run_id: str, job: str, error: str, seq: int = 0, steps: int = 5) -> dict:
    return {
        "v": 1,
        "stream": f"stream-{run_id}",
        "seq": seq,
        "run": {"run_id": run_id, "job": job, "host": 0, "attrs": {"hostname": f"host-{job}"}},
        "steps": [[i + 1, 1_700_000_000.0 + i, 0.2, 0.05] for i in range(steps)],
        "events": [[1_700_000_010.0, "error", error, {"source": "traceback"}]],
        "metrics": [
            [1_700_000_010.0, "hbm.used_bytes", 0, 12e9],
            [1_700_000_010.0, "hbm.total_bytes", 0, 16e9],
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
    return Project(name, token, job_id, job, run_id, secret)


@pytest.fixture
def two_projects(live_server, sessions) -> TwoProjects:
    return TwoProjects(
        live_server.url,
        _project(live_server.url, sessions, "alpha"),
        _project(live_server.url, sessions, "beta"),
    )
