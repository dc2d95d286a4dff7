"""Storing a batch: exactly once, in one transaction, in bulk."""

from __future__ import annotations

import logging
import math
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import and_, func, insert, or_, select, update
from sqlalchemy.orm import Session

from tpuwatch.server.auth.principal import Principal
from tpuwatch.server.db import bulk_insert
from tpuwatch.server.device.store import split_rounds, store_rounds
from tpuwatch.server.ingest import keys
from tpuwatch.server.ingest.arrivals import add_hosts, earliest, upsert_jobs
from tpuwatch.server.ingest.group import Group, greatest, least, plain
from tpuwatch.server.ingest.schemas import Batch, IngestResult
from tpuwatch.server.jobs.silent import diverged_in, mark_diverged, record_divergence
from tpuwatch.server.logs.service import store_lines
from tpuwatch.server.models import Event, IngestDrop, Job, JobHost
from tpuwatch.server.series.thinning import Reference, keep_rows, keeps_every_step
from tpuwatch.server.triage.service import classify_events
from tpuwatch.wire import Kind

log = logging.getLogger("tpuwatch.ingest")

METRIC_COLUMNS = ("job_id", "host_index", "chip", "name", "ts", "value", "step")


@dataclass
class Pending:
    """A batch on its way into storage: who sent it, and the SHA-256 of its bytes as received."""

    principal: Principal
    batch: Batch
    digest: str | None = None


def ingest(session: Session, principal: Principal, batch: Batch, digest: str | None = None) -> IngestResult:
    """Store ``batch`` for the principal's project; a batch seen before stores nothing.

    ``digest`` (SHA-256 of the batch as received) tells a redelivery from a different batch that
    reuses a stored key: the first copy is kept either way, and a conflict is counted and logged."""
    return store(session, [Pending(principal, batch, digest)])[0]


def _whole(batch: Batch) -> bool:
    """A merged batch of steps alone (a paced host's usual request, a batch for each second since
    its last): when all of its batches' keys are new (nearly always) ``store`` stores it whole, its
    rows the same as its batches' one by one; copying it into its batches cost the writer more
    than storing them. Events, metrics, logs or a drop count: batch by batch."""
    return bool(batch.steps) and not (batch.events or batch.metrics or batch.logs or batch.dropped)


def _keys(job_id: int, p: Pending) -> list[tuple[int, str, int, str, str | None]]:
    """The batch keys ``p`` claims: its merged batches' (no digest: theirs is not known), or its own."""
    b = p.batch
    if b.records:
        return [(job_id, b.stream, r[0], "", None) for r in b.records]
    return [(job_id, b.stream, b.seq, b.part, p.digest)]


def _kept(host: int, batch: Batch, ref: Reference) -> Sequence[Sequence]:
    """Thinning's choice of the batch's steps, judged batch by batch for a merged one."""
    if not batch.records:
        return keep_rows(host, batch.steps, ref)
    kept: list = []
    at = 0
    for r in batch.records:
        kept.extend(keep_rows(host, batch.steps[at : at + r[1]], ref))
        at += r[1]
    return kept


def store(session: Session, pending: list[Pending]) -> list[IngestResult]:
    """Store many batches in the session's transaction, with statements shared between them
    (app/ingest/group.py): what a pod slice's hundreds of batches a second cost comes down to a
    few statements per group, not per batch. Results come back in order; each batch is stored as
    it would be alone (except that thinning compares every batch of the group with the job's usual
    step as the group began), and a batch whose key came earlier (before, or in this group) is a
    duplicate.

    A merged batch (``Batch.records``) is claimed as the batches it was merged from, each under its
    own key, so that one stored before (sent alone, or in another merged batch) is not stored
    again, however the agent cut its spool into requests; its answer adds theirs up, a duplicate
    when every one of them was."""
    now = time.time()
    wanted: dict[tuple[int, str], Batch] = {}
    for p in pending:
        wanted.setdefault((p.principal.project_id, p.batch.run.run_id), p.batch)
    jobs = upsert_jobs(session, wanted, now)  # (project, run) -> [job id, reference or None]
    placed = [jobs[(p.principal.project_id, p.batch.run.run_id)] for p in pending]
    claims = [_keys(job[0], p) for p, job in zip(pending, placed, strict=True)]
    fresh = iter(keys.claim_many(session, [k for mine in claims for k in mine], now))
    results: list[IngestResult | None] = [None] * len(pending)
    stored = []
    conflicts: dict[int, int] = {}  # job id -> batches that reused a stored key with other content
    for i, (p, job, mine) in enumerate(zip(pending, placed, claims, strict=True)):
        new = [next(fresh) for _ in mine]
        if all(new) and (not p.batch.records or _whole(p.batch)):
            stored.append((i, p.batch, job))
        elif any(new):  # a merged batch: its batches one by one, those not stored before
            stored.extend((i, b, job) for b, n in zip(p.batch.record_batches(), new, strict=True) if n)
        else:
            digest = None if p.batch.records else p.digest  # a merged batch's is of none of its own
            results[i], conflict = _duplicate(session, job[0], p.batch, digest)
            conflicts[job[0]] = conflicts.get(job[0], 0) + conflict
    add_hosts(session, [(job[0], batch) for _, batch, job in stored], now)
    group = Group(now)
    others: list[tuple[int, Batch]] = []  # batches that are not plain: their counters one by one
    for i, batch, job in stored:
        job_id, host = job[0], batch.run.host
        if batch.steps:
            if keeps_every_step(host):
                kept = batch.steps
            else:
                if job[1] is None:
                    job[1] = _reference(session, job_id)
                kept = _kept(host, batch, job[1])
            group.add_steps(job_id, host, batch.steps, kept)
        _store_extras(session, job_id, batch)
        if plain(batch):
            group.add_counters(job_id, batch, earliest(batch, now))
        else:
            others.append((job_id, batch))
        before = results[i].stored if results[i] is not None else 0
        results[i] = IngestResult(job_id=job_id, stored=before + batch.size)
    # Rows are locked table by table, each in key order, the jobs' rows last: concurrent groups
    # (writer threads, server replicas) then never wait for each other in a circle (a deadlock).
    group.write_rows(session)
    group.write_hosts(session, [((job_id, b.run.host), _host_values(b, now)) for job_id, b in others])
    for job_id in sorted(set(group.jobs) | {j for j, _ in others} | set(conflicts)):
        group.write_job(session, job_id)
        mine = [b for j, b in others if j == job_id]
        for batch in mine:
            session.execute(
                update(Job).where(Job.id == job_id).values(**_job_values(session, job_id, batch, now))
            )
        if conflicts.get(job_id):
            more = Job.conflicting_batches + conflicts[job_id]
            session.execute(update(Job).where(Job.id == job_id).values(conflicting_batches=more))
        if any(e[1] == Kind.EXIT for b in mine for e in b.events):
            _settle_job(session, job_id)
    return results  # type: ignore[return-value]


def _store_extras(session: Session, job_id: int, batch: Batch) -> None:
    """Events, metrics and log lines: rarer than steps, stored batch by batch."""
    host = batch.run.host
    events, rounds = split_rounds(batch.events)
    store_rounds(session, job_id, host, rounds)
    if events:
        events = classify_events(events)
        session.execute(
            insert(Event),
            [
                {"job_id": job_id, "host_index": host, "ts": t, "kind": k, "message": m, "data": data}
                for t, k, m, data in events
            ],
        )
        if (when := diverged_in(events)) is not None:
            mark_diverged(session, job_id, when)
    if batch.metrics:
        rows = [
            (job_id, host, m[2], m[1], m[0], m[3] if m[3] is not None and math.isfinite(m[3]) else None)
            + (m[4] if len(m) > 4 else None,)
            for m in batch.metrics
        ]
        bulk_insert(session, "metrics", METRIC_COLUMNS, rows)
        record_divergence(session, job_id, host, batch.metrics)
    if batch.logs:
        store_lines(session, job_id, host, batch.logs)


def _reference(session: Session, job_id: int) -> Reference:
    row = session.execute(
        select(Job.step_time_p50, Job.input_wait_p50, Job.last_step, Job.last_step_at).where(Job.id == job_id)
    ).one()
    return Reference(*row)


def _duplicate(session: Session, job_id: int, batch: Batch, digest: str | None) -> tuple[IngestResult, bool]:
    """The answer to a batch whose key was stored before, and whether it is a conflict (the same
    key, other content: counted on the job by the caller)."""
    plain_duplicate = IngestResult(job_id=job_id, stored=0, duplicate=True, detail="duplicate batch"), False
    if digest is None:  # nothing to compare (a merged batch's batches): no lookup
        return plain_duplicate
    stored = keys.stored_digest(session, job_id, batch.stream, batch.seq, batch.part)
    if stored is None or keys.same_content(digest, stored):
        return plain_duplicate
    where = f"stream {batch.stream!r} seq {batch.seq} part {batch.part!r}"
    log.warning(
        "job %s: batch %s came again with different content (sha256 %s, stored %s); kept the first copy",
        job_id,
        where,
        digest[:12],
        stored[:12],
    )
    result = IngestResult(
        job_id=job_id,
        stored=0,
        duplicate=True,
        detail=f"duplicate batch key with different content ({where}): the first copy was kept "
        "and the conflict counted",
    )
    return result, True


def _record_dropped(session: Session, job_id: int, stream: str, dropped: int):
    """Keep the stream's latest running total; the job's figure is the sum over its streams."""
    if session.bind.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as upsert
    else:
        from sqlalchemy.dialects.sqlite import insert as upsert
    stmt = upsert(IngestDrop).values(job_id=job_id, stream=stream, dropped=dropped)
    stmt = stmt.on_conflict_do_update(
        index_elements=["job_id", "stream"],
        set_={"dropped": greatest(IngestDrop.dropped, stmt.excluded.dropped)},
    )
    session.execute(stmt)
    return select(func.sum(IngestDrop.dropped)).where(IngestDrop.job_id == job_id).scalar_subquery()


def _job_values(session: Session, job_id: int, batch: Batch, now: float) -> dict:
    """The job's counters and state for a batch that is not plain (an error, an exit, dropped
    records, a heartbeat)."""
    values: dict = {
        "last_seen_at": greatest(Job.last_seen_at, now),
        "started_at": least(Job.started_at, earliest(batch, now)),
    }
    if batch.steps:
        last = max(batch.steps, key=lambda r: r[0])
        p50 = statistics.median(r[2] for r in batch.steps)
        wait_p50 = statistics.median(r[3] for r in batch.steps)
        values.update(
            steps=Job.steps + len(batch.steps),
            last_step=greatest(Job.last_step, last[0]),
            last_step_at=greatest(Job.last_step_at, last[1]),
            first_step_at=least(Job.first_step_at, min(r[1] for r in batch.steps)),
        )
        # The job's usual step comes from its reference hosts (a slow host of a slice would move it
        # and make the others' usual steps look like deviations); any host gives a first value.
        if keeps_every_step(batch.run.host):
            values.update(step_time_p50=p50, input_wait_p50=wait_p50)
        else:
            values.update(
                step_time_p50=func.coalesce(Job.step_time_p50, p50),
                input_wait_p50=func.coalesce(Job.input_wait_p50, wait_p50),
            )
    errors = sum(1 for e in batch.events if e[1] == Kind.ERROR)
    if errors:
        values["errors"] = Job.errors + errors
    if batch.dropped:
        values["dropped_events"] = _record_dropped(session, job_id, batch.stream, batch.dropped)
    return values


def _host_values(batch: Batch, now: float) -> dict:
    """The host's counters and state for a batch that is not plain."""
    values: dict = {"last_seen_at": greatest(JobHost.last_seen_at, now)}
    if batch.steps:
        last = max(batch.steps, key=lambda r: r[0])
        values.update(
            steps=JobHost.steps + len(batch.steps),
            last_step=greatest(JobHost.last_step, last[0]),
            last_step_at=greatest(JobHost.last_step_at, last[1]),
            step_time_p50=statistics.median(r[2] for r in batch.steps),
        )
    exits = [e for e in batch.events if e[1] == Kind.EXIT]
    if exits:
        t, _, _, data = exits[-1]
        data = data or {}
        values.update(exited=True, ended_at=t, exit_code=data.get("code"), exit_signal=data.get("signal"))
    return values


def _settle_job(session: Session, job_id: int) -> None:
    """A job fails as soon as one host fails; it succeeds when every host exited cleanly. Counted
    in the database: a 4,096-host job's end settles it once per group of exits, and reading every
    host's row each time was 10 ms of the writer's time per group."""
    h = JobHost
    broke = and_(
        h.exited.is_(True),
        or_(and_(h.exit_signal.is_not(None), h.exit_signal != ""), func.coalesce(h.exit_code, 0) != 0),
    )
    first = session.execute(
        select(h.exit_code, h.exit_signal, h.ended_at)
        .where(h.job_id == job_id, broke)
        .order_by(func.coalesce(h.ended_at, 0))
        .limit(1)
    ).first()
    if first is not None:
        values = dict(
            status="failed", exit_code=first.exit_code, exit_signal=first.exit_signal, ended_at=first.ended_at
        )
    else:
        running, ended = session.execute(
            select(func.count().filter(h.exited.is_not(True)), func.max(func.coalesce(h.ended_at, 0))).where(
                h.job_id == job_id
            )
        ).one()
        if running:
            return
        values = dict(status="succeeded", exit_code=0, ended_at=ended or 0)
    session.execute(update(Job).where(Job.id == job_id, Job.status != "failed").values(**values))


def job_count(session: Session) -> int:
    return session.scalar(select(func.count(Job.id))) or 0
