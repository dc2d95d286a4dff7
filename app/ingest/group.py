"""What the batches of one ingest group share: their raw steps, rollups and step counters,
written in a few statements at the end of the group instead of a few per batch.

A pod slice sends hundreds of small batches a second, nearly all of them plain (steps and nothing
else). Stored one by one, each cost seven statements and a commit, and the job's one row was
updated by every batch of every host. Here the steps of all the group's batches go in one insert,
their rollup rows in one pipelined statement list, each host's counters in one update and the
job's in one. A batch that is not plain (events, an exit, dropped records) updates its counters on
its own (service.py); its steps still join the group's.

>>> from tpuwatch.server.ingest.schemas import Batch
>>> b = Batch(stream="s", seq=0, run={"run_id": "r", "job": "j"}, steps=[[1, 1.7e9, 0.5, 0.0]])
>>> plain(b), plain(b.model_copy(update={"dropped": 3}))
(True, False)
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from sqlalchemy import bindparam, case, update
from sqlalchemy.orm import Session

from tpuwatch.server.db import bulk_insert
from tpuwatch.server.ingest.schemas import Batch
from tpuwatch.server.models import Job, JobHost
from tpuwatch.server.series.rollups import rollup_rows, write_rows
from tpuwatch.server.series.thinning import keeps_every_step
from tpuwatch.wire import Kind

STEP_COLUMNS = ("job_id", "host_index", "step", "ts", "duration", "input_wait")


def greatest(column, value):
    return case((column.is_(None), value), (column < value, value), else_=column)


def least(column, value):
    return case((column.is_(None), value), (column > value, value), else_=column)


def plain(batch: Batch) -> bool:
    """Steps and nothing that changes a job's state: its counters can be merged with others'."""
    return (
        bool(batch.steps)
        and not batch.dropped
        and not any(e[1] in (Kind.ERROR, Kind.EXIT) for e in batch.events)
    )


def _steps_update(table, with_first_step: bool):
    """``UPDATE`` of a job's or host's step counters, built once (building the CASE expressions
    for every batch once cost most of a batch's store time)."""
    values = dict(
        last_seen_at=greatest(table.last_seen_at, bindparam("now")),
        steps=table.steps + bindparam("n"),
        last_step=greatest(table.last_step, bindparam("last_step")),
        last_step_at=greatest(table.last_step_at, bindparam("last_step_at")),
        step_time_p50=bindparam("p50"),
    )
    if with_first_step:
        values.update(
            started_at=least(table.started_at, bindparam("earliest")),
            first_step_at=least(table.first_step_at, bindparam("first_ts")),
            input_wait_p50=bindparam("wait_p50"),
        )
        return update(table).where(table.id == bindparam("jid")).values(**values)
    where = (table.job_id == bindparam("jid")) & (table.host_index == bindparam("host"))
    return update(table).where(where).values(**values)


JOB_STEPS = _steps_update(Job, True)
HOST_STEPS = _steps_update(JobHost, False)


class _Counters:
    """A job's or a host's step counters over the group's plain batches."""

    __slots__ = ("n", "last_step", "last_step_at", "durations", "waits", "earliest", "first_ts")

    def __init__(self) -> None:
        self.n, self.last_step, self.last_step_at = 0, None, None
        self.durations: list[float] = []
        self.waits: list[float] = []
        self.earliest = self.first_ts = float("inf")

    def add(self, steps: Sequence[Sequence], earliest: float) -> None:
        last = max(steps, key=lambda r: r[0])
        self.n += len(steps)
        if self.last_step is None or last[0] > self.last_step:
            self.last_step = last[0]
        if self.last_step_at is None or last[1] > self.last_step_at:
            self.last_step_at = last[1]
        self.durations.extend(r[2] for r in steps)
        self.waits.extend(r[3] for r in steps)
        self.earliest = min(self.earliest, earliest)
        self.first_ts = min(self.first_ts, min(r[1] for r in steps))

    def params(self, now: float, **keys) -> dict:
        return dict(
            keys,
            now=now,
            n=self.n,
            last_step=self.last_step,
            last_step_at=self.last_step_at,
            p50=statistics.median(self.durations),
        )


class Group:
    """Collects what the group's batches share; ``write`` stores it in the session's transaction."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.steps: list[tuple] = []
        # Per (job, host): the steps of the group's batches of that host, summarized into every
        # level's buckets once, when written. A paced host's request carries one batch a second,
        # each a step or a few: written batch by batch they were one upsert per level per batch,
        # mostly into the same buckets, and summarized batch by batch and merged they cost the
        # writer more than the one summary of them all (the same buckets: summarize and merge
        # keep the first of equal values alike).
        self.rollups: dict[tuple[int, int], list[Sequence]] = {}
        self.hosts: dict[tuple[int, int], _Counters] = {}
        # Per job: the counters of all plain batches, and of the reference hosts' alone (the job's
        # usual step comes from those when the group has any: a slow host must not move it).
        self.jobs: dict[int, tuple[_Counters, _Counters]] = {}

    def add_steps(self, job_id: int, host: int, steps: Sequence[Sequence], kept: Sequence[Sequence]) -> None:
        """Every step goes into the rollups; ``kept`` (thinning's choice) also gets raw rows."""
        self.steps.extend((job_id, host, s, t, d, w) for s, t, d, w in kept)
        mine = self.rollups.get((job_id, host))
        if mine is None:
            self.rollups[(job_id, host)] = list(steps)
        else:
            mine.extend(steps)

    def add_counters(self, job_id: int, batch: Batch, earliest: float) -> None:
        """Count a plain batch's steps for its host and its job."""
        host = batch.run.host
        self.hosts.setdefault((job_id, host), _Counters()).add(batch.steps, earliest)
        every, reference = self.jobs.setdefault(job_id, (_Counters(), _Counters()))
        every.add(batch.steps, earliest)
        if keeps_every_step(host):
            reference.add(batch.steps, earliest)

    def write_rows(self, session: Session) -> None:
        """The raw steps and the rollups (in key order)."""
        bulk_insert(session, "steps", STEP_COLUMNS, self.steps, numbers_only=True)
        rows = [
            row for (job_id, host), steps in self.rollups.items() for row in rollup_rows(job_id, host, steps)
        ]
        write_rows(session, rows)

    def write_hosts(self, session: Session, others: list[tuple[tuple[int, int], dict]]) -> None:
        """Every host's counters in ``(job, host)`` order: the plain batches' merged, and
        ``others``' (``((job, host), values)`` of batches that are not plain) one by one."""
        conn = session.connection()
        keyed = [(key, 0, c) for key, c in self.hosts.items()] + [(key, 1, v) for key, v in others]
        keyed.sort(key=lambda k: k[:2])
        run: list[dict] = []
        for (job_id, host), kind, item in keyed:
            if kind == 0:
                run.append(item.params(self.now, jid=job_id, host=host))
                continue
            if run:
                conn.execute(HOST_STEPS, run)
                run = []
            where = (JobHost.job_id == job_id) & (JobHost.host_index == host)
            session.execute(update(JobHost).where(where).values(**item))
        if run:
            conn.execute(HOST_STEPS, run)

    def write_job(self, session: Session, job_id: int) -> None:
        """The job's counters over the group's plain batches (none: nothing to do)."""
        if job_id not in self.jobs:
            return
        every, reference = self.jobs[job_id]
        usual = reference if reference.n else every
        params = every.params(self.now, jid=job_id, earliest=every.earliest, first_ts=every.first_ts)
        params.update(p50=statistics.median(usual.durations), wait_p50=statistics.median(usual.waits))
        session.connection().execute(JOB_STEPS, params)
