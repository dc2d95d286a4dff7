"""Redelivery and what agents report as dropped.

The review's case: a batch delivered again under a stored key but with different content was
silently answered "duplicate" (the first copy is kept, rightly, but nobody heard of the conflict).
"""

from __future__ import annotations

import logging
import time

from tests.conftest import make_token
from tests.helpers import api, jobs


def _batch(seq: int = 0, stream: str = "s1", steps: int = 3, dropped: int = 0, first: int = 1) -> dict:
    now = time.time()
    return {
        "stream": stream,
        "seq": seq,
        "run": {"run_id": "r1", "job": "j"},
        "steps": [[first + i, now - 10 + i, 0.1, 0.0] for i in range(steps)],
        "dropped": dropped,
    }


def _metric(text: str, name: str) -> float:
    line = next(ln for ln in text.splitlines() if ln.startswith(name + "{"))
    return float(line.rsplit(" ", 1)[1])


def test_a_redelivered_batch_with_different_content_is_counted_and_logged_and_the_first_kept(
    live_server, sessions, caplog
):
    token = make_token(sessions)
    with api(live_server.url, token) as c, caplog.at_level(logging.WARNING, logger="tpuwatch.ingest"):
        body = _batch(steps=3)
        first = c.post("/api/v1/ingest", json=body)
        same = c.post("/api/v1/ingest", json=body)
        other = c.post("/api/v1/ingest", json=_batch(steps=5, first=100))
        job_id = first.json()["job_id"]
        job = c.get(f"/api/v1/jobs/{job_id}").json()
        metrics = c.get("/metrics").text
        steps = c.get(f"/api/v1/jobs/{job_id}/steps", params={"points": 100}).json()
    assert first.status_code == same.status_code == other.status_code == 200
    assert other.json()["duplicate"] is True and "different content" in other.json()["detail"]
    assert job["steps"] == 3 and job["conflicting_batches"] == 1
    assert _metric(metrics, "tpuwatch_job_conflicting_batches_total") == 1.0
    assert max(steps["series"][0]["x"]) == 3  # the first copy is what was kept
    [record] = [r for r in caplog.records if "different content" in r.getMessage()]
    assert "s1" in record.getMessage() and "seq 0" in record.getMessage()


def test_the_same_batch_again_is_a_plain_duplicate_not_a_conflict(live_server, sessions):
    token = make_token(sessions)
    body = _batch()
    with api(live_server.url, token) as c:
        job_id = c.post("/api/v1/ingest", json=body).json()["job_id"]
        again = c.post("/api/v1/ingest", json=body).json()
        job = c.get(f"/api/v1/jobs/{job_id}").json()
    assert again["duplicate"] is True and again["detail"] == "duplicate batch"
    assert job["conflicting_batches"] == 0


def test_dropped_events_add_up_over_the_streams_of_a_job(live_server, sessions):
    """The sidecar, the training process and the spool's loss notices each report their own running
    total: the job's figure is their sum, not the largest of them."""
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        c.post("/api/v1/ingest", json=_batch(seq=0, stream="sidecar", dropped=5))
        c.post("/api/v1/ingest", json=_batch(seq=1, stream="sidecar", dropped=9))
        c.post("/api/v1/ingest", json=_batch(seq=0, stream="child", dropped=7))
        job_id = c.post("/api/v1/ingest", json=_batch(seq=2, stream="sidecar", dropped=6)).json()["job_id"]
        job = c.get(f"/api/v1/jobs/{job_id}").json()
        metrics = c.get("/metrics").text
    assert job["dropped_events"] == 16  # 9 (the sidecar's latest total, not its late 6) + 7
    assert _metric(metrics, "tpuwatch_job_dropped_events_total") == 16.0


def test_a_merged_batch_stores_only_the_batches_not_stored_before_and_must_add_up(live_server, sessions):
    """A merged batch (``records``) is claimed batch by batch: one already stored is left out, the
    rest stored; all stored before is a plain duplicate; counts that do not add up are refused."""
    token = make_token(sessions)
    merged = _batch(seq=4, steps=9)
    merged["records"] = [[4, 3, 0, 0, 0], [5, 3, 0, 0, 0], [6, 3, 0, 0, 0]]
    with api(live_server.url, token) as c:
        alone = _batch(seq=5, steps=3, first=4)  # the middle batch, sent by itself first
        assert c.post("/api/v1/ingest", json=alone).json()["stored"] == 3
        got = c.post("/api/v1/ingest", json=merged).json()
        assert (got["stored"], got["duplicate"]) == (6, False)
        again = c.post("/api/v1/ingest", json=merged).json()
        assert (again["stored"], again["duplicate"]) == (0, True)
        assert jobs(c)[0]["steps"] == 9
        for bad in (
            [[4, 3, 0, 0, 0], [5, 5, 0, 0, 0]],
            [[4, 3, 0, 0, 0], [4, 6, 0, 0, 0]],
            [[7, 9, 0, 0, 0]],
        ):
            r = c.post("/api/v1/ingest", json={**merged, "seq": 4, "records": bad})
            assert r.status_code == 422, r.text
