import math
import time

from tests.conftest import make_token
from tests.helpers import api, jobs

T0 = time.time() - 86400  # a day ago: inside the window of times ingest accepts


def _post_steps(c, n, run_id="r", host=0, stream="s", spike_at=None):
    rows = []
    now = time.time()
    for i in range(n):
        d = 5.0 if i == spike_at else 0.1 + 0.01 * math.sin(i / 50)
        rows.append([i + 1, now - n + i, d, 0.0])
    for k in range(0, n, 10_000):
        r = c.post(
            "/api/v1/ingest",
            json={
                "stream": stream,
                "seq": k,
                "run": {"run_id": run_id, "job": "long", "host": host},
                "steps": rows[k : k + 10_000],
            },
        )
        assert r.status_code == 200, r.text


def test_job_list_has_the_contract_fields(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        _post_steps(c, 10)
        [job] = jobs(c)
    for field in (
        "id",
        "name",
        "project",
        "status",
        "hosts",
        "steps",
        "last_step",
        "last_step_at",
        "step_time_p50",
        "errors",
        "started_at",
        "ended_at",
    ):
        assert field in job
    assert job["status"] == "running" and job["steps"] == 10 and job["last_step"] == 10


def test_steps_are_downsampled_but_keep_the_spike(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        _post_steps(c, 30_000, spike_at=12_345)
        [job] = jobs(c)
        data = c.get(f"/api/v1/jobs/{job['id']}/steps", params={"points": 500}).json()
    step_time = next(s for s in data["series"] if s["metric"] == "step_time")
    assert len(step_time["x"]) <= 500
    assert max(step_time["y"]) == 5.0
    assert 12_346 in step_time["x"]


def test_steps_window_for_zoom(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        _post_steps(c, 1000)
        [job] = jobs(c)
        data = c.get(f"/api/v1/jobs/{job['id']}/steps", params={"start": 100, "end": 199}).json()
    xs = data["series"][0]["x"]
    assert xs[0] == 100 and xs[-1] == 199 and len(xs) == 100


def test_jobs_are_newest_first_and_filter_by_status(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        for i in range(3):
            c.post(
                "/api/v1/ingest",
                json={
                    "stream": f"s{i}",
                    "seq": 0,
                    "run": {"run_id": f"r{i}", "job": f"job{i}"},
                    "events": [[T0 + i, "start", "", None]]
                    + ([[T0 + 1 + i, "exit", "", {"code": 1}]] if i == 1 else []),
                },
            )
        names = [j["name"] for j in jobs(c)]
        failed = c.get("/api/v1/jobs", params={"status": "failed"}).json()["jobs"]
        bad = c.get("/api/v1/jobs", params={"status": "bogus"})
    assert names == ["job2", "job1", "job0"]
    assert [j["name"] for j in failed] == ["job1"]
    assert bad.status_code == 422
