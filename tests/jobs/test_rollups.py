"""Rollups written at ingest, served for wide chart views, and what makes pruning raw steps safe."""

import random
import time

import pytest
from sqlalchemy import event, func, select

from tests.conftest import make_token
from tpuwatch.server.dashboard.overview import overview
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest.schemas import Batch
from tpuwatch.server.ingest.service import ingest
from tpuwatch.server.models import LEVEL_WIDTHS, Job, Step, StepRollup
from tpuwatch.server.series import rollups
from tpuwatch.server.series.service import step_series
from tpuwatch.server.tokens.service import authenticate

T0 = time.time() - 86400  # UNIX seconds the ingest schema accepts


def _store(sessions, principal, run_id, host, rows, seq, job="long"):
    batch = Batch(
        stream=f"{run_id}-{host}", seq=seq, run={"run_id": run_id, "job": job, "host": host}, steps=rows
    )
    with transaction(sessions) as s:
        return ingest(s, principal, batch).job_id


def _principal(sessions):
    token = make_token(sessions)
    with transaction(sessions) as s:
        return authenticate(s, token)


def _rollup_rows(session, job_id):
    cols = [c for c in rollups.COLUMNS if c not in ("job_id", "last_ts")]
    q = select(*[StepRollup.__table__.c[c] for c in cols]).where(StepRollup.job_id == job_id)
    return sorted(tuple(round(v, 9) if isinstance(v, float) else v for v in r) for r in session.execute(q))


def test_rollups_merged_from_shuffled_batches_equal_a_rebuild_from_raw_steps(sessions):
    principal = _principal(sessions)
    rng = random.Random(7)
    rows = [[i, T0 + i, rng.uniform(0.05, 0.5), rng.uniform(0, 0.02)] for i in range(1, 5001)]
    chunks = [rows[k : k + 700] for k in range(0, len(rows), 700)]
    order = list(range(len(chunks)))
    rng.shuffle(order)  # batches split buckets and arrive out of order
    for seq in order:
        job_id = _store(sessions, principal, "r", 0, chunks[seq], seq)
    with transaction(sessions) as s:
        at_ingest = _rollup_rows(s, job_id)
        rollups.rebuild(s, job_id)
        rebuilt = _rollup_rows(s, job_id)
        counts = dict(
            s.execute(
                select(StepRollup.level, func.sum(StepRollup.n))
                .where(StepRollup.job_id == job_id)
                .group_by(StepRollup.level)
            ).all()
        )
    assert at_ingest == rebuilt
    assert counts == {level: 5000 for level in range(len(LEVEL_WIDTHS))}


def test_a_wide_view_reads_rollups_and_keeps_each_hosts_spike(sessions):
    principal = _principal(sessions)
    for host in range(2):
        rows = [[i, T0 + i, 9.0 if i == 30_001 + host else 0.1, 0.0] for i in range(1, 60_001)]
        for k in range(0, len(rows), 20_000):
            job_id = _store(sessions, principal, "wide", host, rows[k : k + 20_000], k)
    with transaction(sessions) as s:
        job = s.get(Job, job_id)
        data = step_series(s, job, points=500)
        window = step_series(s, job, points=500, start=30_000, end=30_200)
    assert data.source == "rollup" and data.bucket_steps == LEVEL_WIDTHS[0]
    step_time = {x.host: x for x in data.series if x.metric == "step_time"}
    assert set(step_time) == {0, 1}
    for host, s_ in step_time.items():
        assert len(s_.x) <= 500
        assert max(s_.y) == 9.0 and s_.x[s_.y.index(9.0)] == 30_001 + host
    assert window.source == "raw" and len(window.series[0].x) == 201


def test_prune_deletes_old_raw_steps_and_charts_still_draw_the_whole_run(sessions):
    principal = _principal(sessions)
    now = time.time()
    old = [[i, now - 40 * 86400 + i, 5.0 if i == 777 else 0.2, 0.01] for i in range(1, 3001)]
    new = [[i, now - 3600 + i, 0.2, 0.01] for i in range(3001, 4001)]
    _store(sessions, principal, "p", 0, old, 0)
    job_id = _store(sessions, principal, "p", 0, new, 1)
    with transaction(sessions) as s:
        s.execute(StepRollup.__table__.delete())  # as after an upgrade from before rollups existed
    with transaction(sessions) as s:
        result = rollups.prune_raw_steps(s, older_than_days=30, now=now)
    with transaction(sessions) as s:
        raw = s.scalar(select(func.count()).select_from(Step).where(Step.job_id == job_id))
        job = s.get(Job, job_id)
        full = step_series(s, job, points=200)
        pruned_window = step_series(s, job, points=2000, start=700, end=900)
    assert result == {"jobs": 1, "rebuilt": 1, "deleted": 3000, "partitions": 0}
    assert raw == 1000
    spike = next(x for x in full.series if x.metric == "step_time")
    assert max(spike.y) == 5.0 and min(spike.x) <= 16 and max(spike.x) >= 3990
    assert pruned_window.source == "rollup"
    assert max(next(x for x in pruned_window.series if x.metric == "step_time").y) == 5.0


def test_prune_refuses_a_negative_age(sessions):
    with transaction(sessions) as s, pytest.raises(ValueError):
        rollups.prune_raw_steps(s, older_than_days=-1)


def test_overview_of_many_jobs_takes_a_fixed_number_of_queries(sessions, settings):
    principal = _principal(sessions)
    for j in range(40):
        rows = [[i, T0 + i, 0.1 + j / 100, 0.01] for i in range(1, 20 * (j + 1))]
        _store(sessions, principal, f"job{j}", 0, rows, 0, job=f"job{j}")
    statements = []
    with transaction(sessions) as s:
        engine = s.get_bind()
        listener = lambda *args: statements.append(args[2])  # noqa: E731
        event.listen(engine, "before_cursor_execute", listener)
        try:
            data = overview(s, principal, settings)
        finally:
            event.remove(engine, "before_cursor_execute", listener)
    assert len(data.jobs) == 40
    assert all(len(j.trend) >= 1 for j in data.jobs)
    # The page of jobs, its hosts, the figures, trends, errors, bars: the same count for 4 or 400 jobs.
    assert len(statements) <= 11, statements
