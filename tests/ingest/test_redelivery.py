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


def _stored(sessions, run_id: str) -> tuple:
    """What a job's steps left in the database, ids and times of arrival aside."""
    from sqlalchemy import select

    from tpuwatch.server.models import Job, JobHost, Step, StepRollup

    with sessions() as s:
        job = s.scalar(select(Job).where(Job.run_id == run_id))
        steps = s.execute(
            select(Step.host_index, Step.step, Step.duration, Step.input_wait)
            .where(Step.job_id == job.id)
            .order_by(Step.host_index, Step.step)
        ).all()
        rollups = s.execute(
            select(
                StepRollup.level, StepRollup.host_index, StepRollup.bucket, StepRollup.n, StepRollup.max_step
            )
            .where(StepRollup.job_id == job.id)
            .order_by(StepRollup.level, StepRollup.host_index, StepRollup.bucket)
        ).all()
        hosts = s.execute(
            select(JobHost.host_index, JobHost.steps, JobHost.last_step).where(JobHost.job_id == job.id)
        ).all()
        return (
            [tuple(r) for r in steps],
            [tuple(r) for r in rollups],
            sorted(tuple(r) for r in hosts),
            job.steps,
        )


def test_a_merged_batch_of_steps_is_stored_as_its_batches_would_be_one_by_one(live_server, sessions):
    """A paced host's request (a batch for each second, merged) is stored whole when all of its
    batches are new: the same raw rows (thinning judged batch by batch, on a host past the
    reference ones), rollups and counters as the same batches sent one by one."""
    token = make_token(sessions)
    now = time.time()

    def second(run: str, host: int, seq: int) -> dict:
        # A steady step, and one slow step in every third second (a raw row off the reference hosts).
        first = 1 + 4 * seq
        steps = [
            [first + i, now - 60 + first + i, 0.5 if (seq % 3 == 2 and i == 1) else 0.1, 0.0]
            for i in range(4)
        ]
        return {
            "stream": f"{run}-{host}",
            "seq": seq,
            "run": {"run_id": run, "job": run, "host": host},
            "steps": steps,
        }

    with api(live_server.url, token) as c:
        for run in ("alone", "merged"):
            for seq in range(
                3
            ):  # the job's usual step is known before the host past the reference ones sends
                assert c.post("/api/v1/ingest", json=second(run, 0, seq)).status_code == 200
        for seq in range(3, 12):
            assert c.post("/api/v1/ingest", json=second("alone", 20, seq)).status_code == 200
        parts = [second("merged", 20, seq) for seq in range(3, 12)]
        merged = dict(parts[0], steps=[row for p in parts for row in p["steps"]])
        merged["records"] = [[p["seq"], len(p["steps"]), 0, 0, 0] for p in parts]
        got = c.post("/api/v1/ingest", json=merged).json()
        assert (got["stored"], got["duplicate"]) == (36, False)
        again = c.post("/api/v1/ingest", json=merged).json()
        assert (again["stored"], again["duplicate"]) == (0, True)
    alone, whole = _stored(sessions, "alone"), _stored(sessions, "merged")
    assert whole == alone
    raw_20 = [r for r in whole[0] if r[0] == 20]
    assert 0 < len(raw_20) < 36  # thinned: the slow steps kept, the steady ones not
