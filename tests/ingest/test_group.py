"""Group commit: many batches in one transaction store exactly what they store one by one, and the
writer answers each request on its own (bad tokens, read-only tokens, malformed bodies, a batch
that breaks its group's transaction)."""

from __future__ import annotations

import hashlib
import json

import pytest
from fastapi import HTTPException
from sqlalchemy import func, select

from tests.conftest import make_token
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest import keys, service
from tpuwatch.server.ingest.schemas import BatchAdapter, IngestResult
from tpuwatch.server.ingest.writer import Delivery, Writer
from tpuwatch.server.models import Job, JobHost, Step, StepRollup
from tpuwatch.server.tokens.service import authenticate

T0 = 1_700_000_000.0


def _batch(host: int, seq: int, first_step: int, n: int = 20, slow_host: int = 11, **extra) -> dict:
    steps = []
    for i in range(n):
        step = first_step + i
        duration = 1.5 if host == slow_host and i % 5 == 0 else 0.5
        steps.append([step, T0 + step * 0.5, duration, 0.01 + 0.001 * host])
    return dict(
        stream=f"h{host}",
        seq=seq,
        run={"run_id": "pod", "job": "pod", "host": host, "attrs": {"hostname": f"vm-{host}"}},
        steps=steps,
        **extra,
    )


def _pending(principal, raw: dict) -> service.Pending:
    body = json.dumps(raw).encode()
    return service.Pending(principal, BatchAdapter.validate_json(body), hashlib.sha256(body).hexdigest())


def _snapshot(s, job_id: int) -> dict:
    job = s.get(Job, job_id)
    hosts = s.execute(
        select(
            JobHost.host_index, JobHost.hostname, JobHost.steps, JobHost.last_step, JobHost.last_step_at
        ).where(JobHost.job_id == job_id)
    ).all()
    steps = s.execute(
        select(Step.host_index, Step.step, Step.ts, Step.duration, Step.input_wait).where(
            Step.job_id == job_id
        )
    ).all()
    rollups = s.execute(
        select(
            StepRollup.level,
            StepRollup.host_index,
            StepRollup.bucket,
            StepRollup.n,
            StepRollup.sum_duration,
            StepRollup.max_duration,
            StepRollup.max_wait,
        ).where(StepRollup.job_id == job_id)
    ).all()
    return dict(
        job=(job.steps, job.last_step, job.last_step_at, job.first_step_at, job.status),
        hosts=sorted(hosts),
        steps=sorted(steps),
        rollups=sorted(
            (lv, h, b, n, round(sd, 3), round(mx, 3), round(w, 4)) for lv, h, b, n, sd, mx, w in rollups
        ),
    )


def _rounds(hosts: int = 16, rounds: int = 3) -> list[list[dict]]:
    return [[_batch(h, r, 1 + r * 20) for h in range(hosts)] for r in range(rounds)]


def test_a_group_stores_exactly_what_the_same_batches_store_one_by_one(sessions):
    token = make_token(sessions)
    with transaction(sessions) as s:
        principal = authenticate(s, token)
    rounds = _rounds()
    with transaction(sessions) as s:  # one by one: another job of the same batches
        for batches in rounds:
            for raw in batches:
                raw = dict(raw, run=dict(raw["run"], run_id="alone"))
                assert service.ingest(s, principal, _pending(principal, raw).batch).stored == 20
    for batches in rounds:  # a transaction per round, every host's batch in one group
        with transaction(sessions) as s:
            results = service.store(s, [_pending(principal, raw) for raw in batches])
        assert [r.stored for r in results] == [20] * len(batches)
    with transaction(sessions) as s:
        ids = dict(s.execute(select(Job.run_id, Job.id)).all())
        alone, grouped = _snapshot(s, ids["alone"]), _snapshot(s, ids["pod"])
    assert grouped["job"][0] == 16 * 60 and grouped["job"][1] == 60
    assert len(grouped["hosts"]) == 16
    # Thinning in a group reads the job's reference once, at the group's start; one by one, every
    # batch sees the one before. The rollups and counters hold every step either way.
    assert grouped["rollups"] == alone["rollups"]
    assert grouped["hosts"] == alone["hosts"]
    assert grouped["job"] == alone["job"]
    kept_slow = {r[1] for r in grouped["steps"] if r[0] == 11}
    assert kept_slow >= {s for s in range(41, 61) if (s - 41) % 5 == 0}  # the slow host's deviations
    # Past the first group (a new job has no reference yet: all kept), hosts 8+ keep deviations only.
    assert {r[0] for r in grouped["steps"] if r[1] > 20} == set(range(8)) | {11}


def test_a_key_twice_in_one_group_is_stored_once_and_a_conflict_is_counted(sessions):
    token = make_token(sessions)
    with transaction(sessions) as s:
        principal = authenticate(s, token)
    first = _batch(3, 7, 1)
    again = _batch(3, 7, 1)
    changed = _batch(3, 7, 100)  # the same key, other content: a sender's bug
    with transaction(sessions) as s:
        results = service.store(s, [_pending(principal, b) for b in (first, again, changed, _batch(4, 7, 1))])
    assert [(r.stored, r.duplicate) for r in results] == [(20, False), (0, True), (0, True), (20, False)]
    assert "different content" in results[2].detail
    with transaction(sessions) as s:
        job = s.scalar(select(Job))
        assert (job.steps, job.conflicting_batches) == (40, 1)
        assert keys.stored_seqs(s, job.id, "h3") == [7]
        assert s.scalar(select(func.sum(StepRollup.n)).where(StepRollup.level == 0)) == 40


def _delivery(token: str, raw: dict | None, invalid: HTTPException | None = None, fail=False):
    body = json.dumps(raw or {}).encode()

    def principal_of(session, tok):
        if fail:
            raise RuntimeError("this delivery breaks its group's transaction")
        principal = authenticate(session, tok)
        if principal is None:
            raise HTTPException(401, "unknown or revoked token")
        return principal

    batch = BatchAdapter.validate_json(body) if raw is not None and invalid is None else None
    return Delivery(token, batch, hashlib.sha256(body).hexdigest(), principal_of, invalid=invalid)


def test_the_writer_answers_each_delivery_of_a_group_on_its_own(sessions):
    token = make_token(sessions)
    reader = make_token(sessions, scope="read")
    spent: list[float] = []
    writer = Writer(sessions, spent.append)
    group = [
        _delivery(token, _batch(0, 0, 1)),
        _delivery("tpw_not_a_token", _batch(1, 0, 1)),
        _delivery(reader, _batch(2, 0, 1)),
        _delivery(token, None, invalid=HTTPException(422, "malformed batch")),
        _delivery("tpw_not_a_token", None, invalid=HTTPException(422, "malformed batch")),
        _delivery(token, _batch(3, 0, 1)),
    ]
    for d in group:  # queued before the thread starts: one group
        writer._queue.put(d)
    writer.start()
    try:
        outcomes = []
        for d in group:
            exc = d.future.exception(timeout=30)
            outcomes.append(exc.status_code if exc is not None else d.future.result().stored)
    finally:
        writer.stop()
    assert outcomes == [20, 401, 403, 422, 401, 20]  # the token is checked before the body
    assert writer.stats() == {"queued": 0, "groups": 1, "batches": 6, "largest_group": 6}
    assert len(spent) == 6 and all(t >= 0 for t in spent)
    with transaction(sessions) as s:
        assert s.scalar(select(func.sum(JobHost.steps))) == 40


@pytest.mark.parametrize("wait, groups", [(0.0, 3), (2.0, 1)])
def test_while_hosts_are_paced_the_writer_waits_for_a_fuller_group(sessions, wait, groups):
    """Batches that come a little apart are stored one group each, or, while the server paces its
    hosts (``wait``: a fiftieth of the pace, app/ops/pacing.py), together in one."""
    token = make_token(sessions)
    writer = Writer(sessions, wait=lambda: wait).start()
    try:
        deliveries = []
        for host in range(3):
            deliveries.append(_delivery(token, _batch(host, 0, 1)))
            writer.submit(deliveries[-1])
            if not wait:
                deliveries[-1].future.result(timeout=30)  # stored before the next comes
        assert [d.future.result(timeout=30).stored for d in deliveries] == [20, 20, 20]
    finally:
        writer.stop()
    assert writer.stats()["groups"] == groups


def test_a_delivery_that_breaks_its_group_fails_alone(sessions):
    token = make_token(sessions)
    other = make_token(sessions)  # its own token: the group checks it, and that check breaks
    writer = Writer(sessions)
    group = [_delivery(other if h == 2 else token, _batch(h, 0, 1), fail=(h == 2)) for h in range(5)]
    for d in group:
        writer._queue.put(d)
    writer.start()
    try:
        results = [d.future.exception(timeout=30) or d.future.result() for d in group]
    finally:
        writer.stop()
    assert isinstance(results[2], RuntimeError)
    assert [r.stored for i, r in enumerate(results) if i != 2] == [20, 20, 20, 20]
    assert all(isinstance(r, IngestResult) for i, r in enumerate(results) if i != 2)
    with transaction(sessions) as s:
        hosts = sorted(s.scalars(select(JobHost.host_index)))
    assert hosts == [0, 1, 3, 4]


def test_a_stopped_writer_refuses_with_503_and_a_cancelled_delivery_is_skipped(sessions):
    token = make_token(sessions)
    writer = Writer(sessions)
    cancelled = _delivery(token, _batch(0, 0, 1))
    kept = _delivery(token, _batch(1, 0, 1))
    cancelled.future.cancel()  # its request gave up while it queued
    writer._queue.put(cancelled)
    writer._queue.put(kept)
    writer.start()
    assert kept.future.result(timeout=30).stored == 20
    writer.stop()
    late = writer.submit(_delivery(token, _batch(2, 0, 1)))
    with pytest.raises(HTTPException) as refused:
        late.result(timeout=5)
    assert refused.value.status_code == 503 and refused.value.headers == {"Retry-After": "1"}
    with transaction(sessions) as s:
        assert sorted(s.scalars(select(JobHost.host_index))) == [1]


def test_concurrent_groups_of_one_job_never_deadlock(pg_database):
    """Groups that share hosts, each with batches that are not plain (heartbeats, an error), stored
    side by side in two transactions at a time (two writer threads, or two server replicas): rows
    are locked table by table in key order, the job's last, so PostgreSQL never finds a deadlock."""
    import threading

    from tests.conftest import _truncate_all
    from tpuwatch.server.db import make_engine, make_sessionmaker

    engine = make_engine(pg_database)
    sessions = make_sessionmaker(engine)
    try:
        token = make_token(sessions)
        with transaction(sessions) as s:
            principal = authenticate(s, token)
        failures: list[BaseException] = []

        def side(order: list[int], seq_base: int, beats: bool) -> None:
            try:
                for r in range(12):
                    group = []
                    for h in order:
                        if beats:  # a heartbeat first: a batch that is not plain
                            beat = dict(stream=f"beat{h}", seq=r, run=_batch(h, 0, 1)["run"])
                            if h % 3 == 0:
                                beat["events"] = [[T0 + r, "error", "boom", None]]
                            group.append(_pending(principal, beat))
                        group.append(_pending(principal, _batch(h, seq_base + r, 1 + r * 20)))
                    with transaction(sessions) as s:
                        service.store(s, group)
            except BaseException as exc:  # a deadlock surfaces here as DeadlockDetected
                failures.append(exc)

        hosts = list(range(12))
        threads = [
            threading.Thread(target=side, args=(hosts, 0, False)),
            threading.Thread(target=side, args=(hosts[::-1], 1000, True)),
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert failures == []
        with transaction(sessions) as s:
            assert s.scalar(select(func.sum(JobHost.steps))) == 2 * 12 * 12 * 20
            assert s.scalar(select(Job.errors)) == 12 * 4
    finally:
        engine.dispose()
        _truncate_all(pg_database)
