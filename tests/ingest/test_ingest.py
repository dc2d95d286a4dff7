"""POST /api/v1/ingest against a real server: idempotency, limits, tokens, isolation."""

import gzip
import json
import time

import pytest

from tests.conftest import make_token, start_server
from tests.helpers import api, jobs

T0 = time.time() - 86400  # a day ago: inside the window of times ingest accepts


def batch(seq=0, stream="s1", run_id="r1", job="j", steps=3, events=(), host=0, part=""):
    return {
        "v": 1,
        "stream": stream,
        "seq": seq,
        "part": part,
        "run": {"run_id": run_id, "job": job, "host": host, "attrs": {"hostname": "t1v-n-abc-w-0"}},
        "steps": [[seq * 1000 + i + 1, T0 + i, 0.1, 0.01] for i in range(steps)],
        "events": list(events),
        "metrics": [],
    }


def test_the_same_batch_twice_is_stored_once(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        first = c.post("/api/v1/ingest", json=batch())
        again = c.post("/api/v1/ingest", json=batch())
        assert first.status_code == 200 and first.json()["stored"] == 3
        assert again.status_code == 200 and again.json()["duplicate"] is True and again.json()["stored"] == 0
        c.post("/api/v1/ingest", json=batch(seq=1))
        [job] = jobs(c)
    assert job["steps"] == 6


def test_gzip_bodies_are_accepted(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        body = gzip.compress(json.dumps(batch(steps=500)).encode())
        r = c.post(
            "/api/v1/ingest",
            content=body,
            headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
        )
        assert r.status_code == 200, r.text
        assert jobs(c)[0]["steps"] == 500


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ({"stream": "s", "seq": -1, "run": {"run_id": "r", "job": "j"}}, "seq"),
        ({"stream": "s", "seq": 0, "run": {"run_id": "r", "job": "j"}, "steps": [[1, "x", 0.1, 0]]}, "steps"),
        ({"stream": "s", "seq": 0}, "run"),
    ],
)
def test_malformed_batches_get_422_that_names_the_field_and_store_nothing(
    live_server, sessions, bad, fragment
):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        c.post("/api/v1/ingest", json=batch())
        r = c.post("/api/v1/ingest", json=bad)
        assert r.status_code == 422
        assert fragment in json.dumps(r.json()["detail"])
        assert jobs(c)[0]["steps"] == 3


def test_garbage_body_is_a_clear_422(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        r = c.post("/api/v1/ingest", content=b"\x00not json", headers={"Content-Type": "application/json"})
        assert r.status_code == 422
        assert r.json()["detail"]["message"] == "malformed batch"


def test_limits_answer_413_with_what_to_change(settings, sessions):
    settings.max_body_bytes = 20_000
    settings.max_batch_events = 100
    settings.max_decoded_bytes = 1_000_000
    server = start_server(settings)
    token = make_token(sessions)
    try:
        with api(server.url, token) as c:
            too_big = c.post(
                "/api/v1/ingest", content=b"x" * 30_000, headers={"Content-Type": "application/json"}
            )
            assert too_big.status_code == 413 and "smaller batches" in too_big.json()["detail"]
            too_many = c.post("/api/v1/ingest", json=batch(steps=150))
            assert too_many.status_code == 413 and "limit is 100" in too_many.json()["detail"]
            bomb = gzip.compress(b" " * 10_000_000)
            r = c.post("/api/v1/ingest", content=bomb, headers={"Content-Encoding": "gzip"})
            assert r.status_code == 413
            assert jobs(c) == []
    finally:
        server.stop()


def test_wrong_or_missing_token_is_401(live_server, sessions):
    make_token(sessions)
    with api(live_server.url, "tpw_not-a-token") as c:
        assert c.post("/api/v1/ingest", json=batch()).status_code == 401
        assert c.get("/api/v1/jobs").status_code == 401
    with api(live_server.url, None) as c:
        assert c.post("/api/v1/ingest", json=batch()).status_code == 401


def test_scopes_read_only_cannot_write_and_ingest_only_cannot_read(live_server, sessions):
    reader = make_token(sessions, "team-a", scope="read")
    writer = make_token(sessions, "team-a", scope="ingest")
    with api(live_server.url, reader) as c:
        assert c.post("/api/v1/ingest", json=batch()).status_code == 403
        assert c.get("/api/v1/jobs").status_code == 200
    with api(live_server.url, writer) as c:
        assert c.post("/api/v1/ingest", json=batch()).status_code == 200
        assert c.get("/api/v1/jobs").status_code == 403


def test_a_token_of_project_a_cannot_see_or_write_project_b(live_server, sessions):
    a = make_token(sessions, "team-a")
    b = make_token(sessions, "team-b")
    with api(live_server.url, b) as cb:
        cb.post("/api/v1/ingest", json=batch(run_id="shared-run", job="b-job"))
        [b_job] = jobs(cb)
    with api(live_server.url, a) as ca:
        assert jobs(ca) == []
        assert ca.get(f"/api/v1/jobs/{b_job['id']}").status_code == 404
        assert ca.get(f"/api/v1/jobs/{b_job['id']}/steps").status_code == 404
        assert ca.get(f"/api/v1/jobs/{b_job['id']}/events").status_code == 404
        # Same run id from A's agent: a job of A's own, B's untouched.
        ca.post("/api/v1/ingest", json=batch(run_id="shared-run", job="a-job", stream="s2"))
        [a_job] = jobs(ca)
        assert a_job["id"] != b_job["id"] and a_job["project"] == "team-a"
    with api(live_server.url, b) as cb:
        [b_again] = jobs(cb)
    assert b_again["steps"] == 3 and b_again["name"] == "b-job"


def test_exit_events_settle_the_status(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        c.post("/api/v1/ingest", json=batch(run_id="ok", events=[[T0 + 100, "exit", "", {"code": 0}]]))
        c.post(
            "/api/v1/ingest",
            json=batch(run_id="bad", stream="s2", events=[[T0 + 100, "exit", "", {"code": 2}]]),
        )
        by_run = {j["run_id"]: j for j in jobs(c)}
    assert by_run["ok"]["status"] == "succeeded"
    assert by_run["bad"]["status"] == "failed" and by_run["bad"]["exit_code"] == 2


def test_two_hosts_with_one_run_id_are_one_job_with_two_hosts(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        c.post("/api/v1/ingest", json=batch(run_id="slice", stream="w0", host=0))
        c.post("/api/v1/ingest", json=batch(run_id="slice", stream="w1", host=1))
        [job] = jobs(c)
        detail = c.get(f"/api/v1/jobs/{job['id']}").json()
    assert job["hosts"] == 2 and job["steps"] == 3 and job["host_steps"] == 6  # training steps, not a sum
    assert [h["host_index"] for h in detail["host_list"]] == [0, 1]
