"""Step rollups: written with every ingested batch, rebuilt from raw steps when missing, and the
reason raw steps can be pruned while charts of the whole run still draw.

Every level's buckets are merged into what is stored (``ON CONFLICT DO UPDATE``), so batches may
arrive in any order and split a bucket between them. A batch is stored once (ingest deduplicates
on its key), so no bucket counts a step twice.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.models import LEVEL_WIDTHS, Step, StepRollup
from tpuwatch.server.series import partitions
from tpuwatch.server.series.thinning import keeps_every_step

COLUMNS = (
    "job_id",
    "level",
    "host_index",
    "bucket",
    "n",
    "sum_duration",
    "min_duration",
    "max_duration",
    "min_step",
    "max_step",
    "sum_wait",
    "max_wait",
    "max_wait_step",
    "last_ts",
)
# Old and new rows merge column by column; every right-hand side reads the row as it was.
_MERGE = """
n = step_rollups.n + excluded.n,
sum_duration = step_rollups.sum_duration + excluded.sum_duration,
min_step = CASE WHEN excluded.min_duration < step_rollups.min_duration
    THEN excluded.min_step ELSE step_rollups.min_step END,
min_duration = CASE WHEN excluded.min_duration < step_rollups.min_duration
    THEN excluded.min_duration ELSE step_rollups.min_duration END,
max_step = CASE WHEN excluded.max_duration > step_rollups.max_duration
    THEN excluded.max_step ELSE step_rollups.max_step END,
max_duration = CASE WHEN excluded.max_duration > step_rollups.max_duration
    THEN excluded.max_duration ELSE step_rollups.max_duration END,
sum_wait = step_rollups.sum_wait + excluded.sum_wait,
max_wait_step = CASE WHEN excluded.max_wait > step_rollups.max_wait
    THEN excluded.max_wait_step ELSE step_rollups.max_wait_step END,
max_wait = CASE WHEN excluded.max_wait > step_rollups.max_wait
    THEN excluded.max_wait ELSE step_rollups.max_wait END,
last_ts = CASE WHEN excluded.last_ts > step_rollups.last_ts
    THEN excluded.last_ts ELSE step_rollups.last_ts END
"""

# Accumulator slots: n, sum_d, min_d, max_d, min_step, max_step, sum_w, max_w, max_w_step, last_ts
_N, _SUM_D, _MIN_D, _MAX_D, _MIN_S, _MAX_S, _SUM_W, _MAX_W, _MAX_WS, _TS = range(10)


def summarize(steps: Iterable[Sequence]) -> list[dict[int, list]]:
    """Buckets of every level for rows of ``(step, end time, duration, input wait)``.

    Returns one ``{bucket start: accumulator}`` dict per level. One pass in plain Python over the
    rows builds the finest level; the coarser ones merge its buckets (they nest exactly).

    >>> levels = summarize([(0, 1.0, 0.5, 0.1), (1, 2.0, 0.7, 0.0), (20, 3.0, 0.2, 0.0)])
    >>> sorted(levels[0]), levels[1][0][:2]
    ([0, 16], [3, 1.4])
    """
    width = LEVEL_WIDTHS[0]
    finest: dict[int, list] = {}
    get = finest.get
    for step, ts, d, w in steps:
        b = step - step % width
        acc = get(b)
        if acc is None:
            finest[b] = [1, d, d, d, step, step, w, w, step, ts]
            continue
        acc[0] += 1
        acc[1] += d
        if d < acc[2]:
            acc[2] = d
            acc[4] = step
        elif d > acc[3]:
            acc[3] = d
            acc[5] = step
        acc[6] += w
        if w > acc[7]:
            acc[7] = w
            acc[8] = step
        if ts > acc[9]:
            acc[9] = ts
    levels = [finest]
    for width in LEVEL_WIDTHS[1:]:
        coarse: dict[int, list] = {}
        for b, acc in levels[-1].items():
            merge(coarse, b - b % width, acc)
        levels.append(coarse)
    return levels


def merge(into: dict[int, list], bucket: int, acc: list) -> None:
    """Fold accumulator ``acc`` into ``into[bucket]``."""
    cur = into.get(bucket)
    if cur is None:
        into[bucket] = list(acc)
        return
    cur[_N] += acc[_N]
    cur[_SUM_D] += acc[_SUM_D]
    if acc[_MIN_D] < cur[_MIN_D]:
        cur[_MIN_D], cur[_MIN_S] = acc[_MIN_D], acc[_MIN_S]
    if acc[_MAX_D] > cur[_MAX_D]:
        cur[_MAX_D], cur[_MAX_S] = acc[_MAX_D], acc[_MAX_S]
    cur[_SUM_W] += acc[_SUM_W]
    if acc[_MAX_W] > cur[_MAX_W]:
        cur[_MAX_W], cur[_MAX_WS] = acc[_MAX_W], acc[_MAX_WS]
    cur[_TS] = max(cur[_TS], acc[_TS])


def rollup_rows(job_id: int, host: int, steps: Sequence[Sequence]) -> list[tuple]:
    """The ``step_rollups`` rows (every level) for ``steps``, one host's rows of a job."""
    return [
        (job_id, level, host, b, *acc)
        for level, buckets in enumerate(summarize(steps))
        for b, acc in buckets.items()
    ]


def write_rows(session: Session, rows: list[tuple]) -> None:
    """Merge rollup rows into ``step_rollups``, in this transaction. Rows may share a bucket
    (batches of one host in one group): each statement merges into what the one before left.
    They are written in key order, so that concurrent writers lock rows in the same order."""
    if not rows:
        return
    conn = session.connection()
    mark = "?" if conn.dialect.name == "sqlite" else "%s"
    sql = (
        f"INSERT INTO step_rollups ({', '.join(COLUMNS)}) VALUES ({', '.join([mark] * len(COLUMNS))}) "
        f"ON CONFLICT (job_id, level, host_index, bucket) DO UPDATE SET {_MERGE}"
    )
    conn.exec_driver_sql(sql, sorted(rows, key=lambda r: r[:4]))


def rebuild(session: Session, job_id: int, chunk: int = 200_000) -> int:
    """Recompute a job's rollups from its raw steps (after an upgrade, or before pruning).

    Returns the raw steps read. Rollups of steps already pruned are kept: buckets that raw rows
    still cover are replaced, the others stay as they were."""
    raw, rolled = _counts(session, job_id)
    total = 0
    # A host whose rollups already count every raw row is left alone: a slice's hosts past the
    # reference ones keep only deviating steps as rows, and their rollups hold all the others.
    for host in [h for h, n in raw.items() if keeps_every_step(h) or (rolled.get(h) or 0) < n]:
        levels: list[dict[int, list]] = [{} for _ in LEVEL_WIDTHS]
        after = -1
        while True:
            part = session.execute(
                select(Step.step, Step.ts, Step.duration, Step.input_wait)
                .where(Step.job_id == job_id, Step.host_index == host, Step.step > after)
                .order_by(Step.step)
                .limit(chunk)
            ).all()
            if not part:
                break
            after = part[-1][0]
            total += len(part)
            for level, buckets in enumerate(summarize(part)):
                for b, acc in buckets.items():
                    merge(levels[level], b, acc)
        for level, buckets in enumerate(levels):
            if buckets:
                lo, hi = min(buckets), max(buckets)
                session.execute(
                    StepRollup.__table__.delete().where(
                        StepRollup.job_id == job_id,
                        StepRollup.level == level,
                        StepRollup.host_index == host,
                        StepRollup.bucket.between(lo, hi),
                    )
                )
        session.flush()
        rows = [
            (job_id, lv, host, b, *acc) for lv, buckets in enumerate(levels) for b, acc in buckets.items()
        ]
        for k in range(0, len(rows), 50_000):
            session.execute(
                StepRollup.__table__.insert(),
                [dict(zip(COLUMNS, r, strict=True)) for r in rows[k : k + 50_000]],
            )
    return total


def _counts(session: Session, job_id: int) -> tuple[dict, dict]:
    """Raw rows and finest-rollup steps of a job, host by host."""
    raw = dict(
        session.execute(
            select(Step.host_index, func.count()).where(Step.job_id == job_id).group_by(Step.host_index)
        ).all()
    )
    rolled = dict(
        session.execute(
            select(StepRollup.host_index, func.sum(StepRollup.n))
            .where(StepRollup.job_id == job_id, StepRollup.level == 0)
            .group_by(StepRollup.host_index)
        ).all()
    )
    return raw, rolled


def covered(session: Session, job_id: int) -> bool:
    """True when the finest rollups count at least every raw step of the job, host by host."""
    raw, rolled = _counts(session, job_id)
    return all((rolled.get(h) or 0) >= n for h, n in raw.items())


def prune_raw_steps(session: Session, older_than_days: float, now: float | None = None) -> dict:
    """Remove raw steps that ended more than ``older_than_days`` ago, after making sure their jobs'
    rollups exist (rebuilding them when not). Rollups are never pruned.

    On PostgreSQL whole day partitions go with ``DROP TABLE`` (see partitions.py); only rows in the
    default partition are deleted one by one. On SQLite rows are deleted.

    Returns ``{"jobs": ..., "rebuilt": ..., "deleted": ..., "partitions": ...}`` (rows of a dropped
    partition are PostgreSQL's estimate)."""
    if older_than_days < 0:
        raise ValueError("older_than_days must be zero or more")
    cutoff = (now if now is not None else time.time()) - older_than_days * 86400
    conn = session.connection()
    jobs: set[int] = set()
    rebuilt = deleted = dropped = 0
    table = Step.__table__
    if partitions.partitioned(conn):
        partitions.ensure(conn)
        for name in partitions.expired(conn, cutoff):
            for job_id in partitions.job_ids_in(conn, name):
                jobs.add(job_id)
                if not covered(session, job_id):
                    rebuild(session, job_id)
                    rebuilt += 1
            deleted += partitions.drop(conn, name)
            dropped += 1
        table = table_for_rows(partitions.DEFAULT)
    job_ids = session.scalars(select(table.c.job_id).where(table.c.ts < cutoff).distinct()).all()
    for job_id in job_ids:
        if job_id not in jobs and not covered(session, job_id):
            rebuild(session, job_id)
            rebuilt += 1
        jobs.add(job_id)
        result = session.execute(table.delete().where(table.c.job_id == job_id, table.c.ts < cutoff))
        deleted += result.rowcount or 0
    session.flush()
    return {"jobs": len(jobs), "rebuilt": rebuilt, "deleted": deleted, "partitions": dropped}


def table_for_rows(name: str):
    """A lightweight table of ``name`` with the columns retention reads (a partition of steps)."""
    from sqlalchemy import column, table

    return table(name, column("job_id"), column("ts"))
