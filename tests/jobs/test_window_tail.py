"""A job's window of raw steps is kept between reads and topped up: what it shows is what a whole read
of the window shows, step after step, on both databases (``app/jobs/tail.py``)."""

from __future__ import annotations

import random

from sqlalchemy import select

from tests.conftest import make_token
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest.schemas import Batch, RunInfo
from tpuwatch.server.ingest.service import ingest
from tpuwatch.server.jobs import tail, window
from tpuwatch.server.models import Job
from tpuwatch.server.tokens.service import authenticate


def _batch(run_id: str, host: int, seq: int, rows: list[tuple]) -> Batch:
    run = RunInfo.model_construct(run_id=run_id, job=run_id, host=host, attrs={})
    return Batch.model_construct(
        v=1, stream=f"{run_id}-{host}", seq=seq, part="", run=run, sent_at=None,
        steps=rows, events=[], metrics=[], dropped=0,
    )  # fmt: skip


class _Job:
    """One job's hosts sending steps: ``send(steps)`` stores the next ``steps`` of every host."""

    def __init__(self, sessions, principal, run_id: str, hosts: int = 2, seed: int = 1) -> None:
        self.sessions, self.principal, self.run_id, self.hosts = sessions, principal, run_id, hosts
        self.rng, self.step, self.seq, self.t = random.Random(seed), 0, 0, 1_700_000_000.0

    def send(self, n: int, first: int | None = None) -> None:
        start = self.step + 1 if first is None else first
        rows = []
        for i in range(start, start + n):
            d = 20.0 if i == 1 else 0.1 + self.rng.random() * 0.05
            self.t += d
            rows.append((i, self.t, d, self.rng.random() * 0.01))
        for h in range(self.hosts):
            with transaction(self.sessions) as s:
                ingest(s, self.principal, _batch(self.run_id, h, self.seq, rows))
        self.seq += 1
        self.step = max(self.step, start + n - 1)


def _both(sessions) -> tuple[dict, dict]:
    """The percentiles as served (kept windows topped up) and as a whole read of every window."""
    with sessions() as s:
        jobs = list(s.scalars(select(Job).order_by(Job.id)))
        window._cache.clear()
        served = window.percentiles(s, jobs)
        window._cache.clear()
        saved = dict(tail._tails)
        tail._tails.clear()
        whole = window.percentiles(s, jobs)
        tail._tails.clear()
        tail._tails.update(saved)
    return served, whole


def test_a_kept_window_topped_up_step_after_step_agrees_with_a_whole_read(settings, sessions, monkeypatch):
    monkeypatch.setattr(window, "WINDOW_STEPS", 256)  # the window moves on within the test
    tail._tails.clear()
    with transaction(sessions) as s:
        principal = authenticate(s, make_token(sessions))
    jobs = [_Job(sessions, principal, f"tail-{k}", seed=k) for k in range(3)]
    for rounds in range(12):
        for k, job in enumerate(jobs):
            job.send(40 + 13 * k + rounds)
        served, whole = _both(sessions)
        assert served == whole, rounds
        assert all(p.step_p50 is not None for p in served.values())
    with sessions() as s:
        assert len(tail._tails) == 3  # kept, not read whole each time
        assert all(len(t.steps) == 256 for t in tail._tails.values())


def test_the_compile_step_stays_out_and_the_window_moves_past_it(settings, sessions):
    tail._tails.clear()
    with transaction(sessions) as s:
        principal = authenticate(s, make_token(sessions))
    job = _Job(sessions, principal, "compile", hosts=1)
    job.send(1)
    served, _ = _both(sessions)
    assert [p.step_p50 for p in served.values()] == [20.0]  # only the compile step: it is the window
    job.send(9)
    served, whole = _both(sessions)
    assert served == whole
    [p] = served.values()
    assert p.step_p50 < 1.0


def test_a_step_stored_far_below_the_top_is_seen_at_the_next_whole_read(settings, sessions, monkeypatch):
    """A run that went back to an earlier step under the same run id: a top-up does not look that
    far down; the whole read every ``REREAD_SECONDS`` does."""
    tail._tails.clear()
    with transaction(sessions) as s:
        principal = authenticate(s, make_token(sessions))
    job = _Job(sessions, principal, "rewind", hosts=1)
    job.send(500)
    _both(sessions)
    job.send(20, first=300)  # far below the top of 500, inside the window
    served, whole = _both(sessions)
    assert served != whole  # the top-up missed them ...
    monkeypatch.setattr(tail, "REREAD_SECONDS", 0.0)
    served, whole = _both(sessions)
    assert served == whole  # ... the whole read has them
    with sessions() as s:
        [t] = tail._tails.values()
        assert len(t.steps) == 500 + 20  # the compile step is kept too, and left out of the figures


def test_a_database_emptied_and_filled_again_gets_its_own_windows(settings, sessions, database_url):
    """Ids start again after ``TRUNCATE ... RESTART IDENTITY`` (or a database made anew at the same
    address): the new job has the old one's id and run id, and none of its rows."""
    from sqlalchemy import text

    tail._tails.clear()
    with transaction(sessions) as s:
        principal = authenticate(s, make_token(sessions))
    _Job(sessions, principal, "again", hosts=1, seed=1).send(50)
    first, _ = _both(sessions)
    with transaction(sessions) as s:
        if database_url.startswith("postgresql"):
            s.execute(text("TRUNCATE steps, job_hosts, jobs RESTART IDENTITY CASCADE"))
        else:
            for table in ("steps", "step_rollups", "job_hosts", "jobs"):
                s.execute(text(f"DELETE FROM {table}"))
    with transaction(sessions) as s:
        principal = authenticate(s, make_token(sessions))
    job = _Job(sessions, principal, "again", hosts=1, seed=2)
    job.t += 7.0  # another start
    job.send(10)
    served, whole = _both(sessions)
    assert served == whole
    assert list(served) == list(first)  # the same job id, other figures
    assert served != first
