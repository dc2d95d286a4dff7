"""What a slice costs to store on PostgreSQL, and how fast a day of raw steps goes.

A job of ``--hosts`` hosts steps once a second for ``--seconds`` seconds; every host sends a batch
every ``--batch-seconds`` through the real ingest service (storage thinning included: every step of
hosts 0-7, only the deviating steps of the others, rollups for all). As agents do: a batch a
second (agent/sender.py's ``Pace``: 1 s, +/-25%, longer only under push-back), each process its
own 32-hex-digit stream, every batch with its SHA-256. The bytes each table holds
(``pg_total_relation_size``: heap, indexes, TOAST; after VACUUM, less what the empty table took) are
divided by the host-steps stored and extrapolated to 1,024 hosts for a day: the reference hosts'
raw rows are a fixed cost (8 hosts), everything else scales with the host count. Then a past day's
partition is filled with ``--drop-rows`` raw rows (and their rollups) and dropped by
``prune_raw_steps``, and ``--drop-keys`` batch-key rows past the ingest window are pruned.

    python bench/bench_storage.py [--hosts 64] [--seconds 1200] [--batch-seconds 1]

Targets: a 1,024-host job at 1 step/s <= 2 GB a day; dropping a day's partition < 10 s.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import fresh_postgres  # noqa: E402

DAY = 86400
TARGET_HOSTS = 1024
TABLES = ("steps", "step_rollups", "job_hosts", "jobs", "ingest_keys", "ingest_parts")


def fill(url: str, hosts: int, seconds: int, every: int, seed: int = 3) -> tuple[int, float]:
    """Ingest the slice; returns (job id, host-steps per second of ingest)."""
    from tpuwatch.server.db import make_engine, make_sessionmaker, transaction
    from tpuwatch.server.ingest.schemas import Batch, RunInfo
    from tpuwatch.server.ingest.service import ingest
    from tpuwatch.server.tokens.service import authenticate, create_token

    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    with transaction(sessions) as s:
        principal = authenticate(s, create_token(s, "bench"))
    rng = random.Random(seed)
    # As agents name them: a random 32-hex-digit stream per process, seq counting its batches.
    streams = [f"{rng.getrandbits(128):032x}" for _ in range(hosts)]
    t0 = time.time() - seconds - 60
    job_id = 0
    started = time.perf_counter()
    for lo in range(0, seconds, every):
        for h in range(hosts):
            rows = []
            for i in range(lo, min(seconds, lo + every)):
                d = 30.0 if i == 0 else 1.0 + rng.gauss(0, 0.02)  # compile, then steady steps
                if rng.random() < 1 / 2000:
                    d *= 3  # an occasional slow step (a GC pause, a hiccup of one host)
                w = 0.01 + abs(rng.gauss(0, 0.002))
                rows.append((i, t0 + i + 1, d, w))
            run = RunInfo.model_construct(run_id="pod", job="pod-bench", host=h, attrs={})
            batch = Batch.model_construct(
                v=1, stream=streams[h], seq=lo // every, part="", run=run, sent_at=None,
                steps=rows, events=[], metrics=[], dropped=0,
            )  # fmt: skip
            digest = hashlib.sha256(f"{streams[h]}:{lo}".encode()).hexdigest()
            with transaction(sessions) as s:
                job_id = ingest(s, principal, batch, digest).job_id
    rate = hosts * seconds / (time.perf_counter() - started)
    engine.dispose()
    return job_id, rate


def sizes(conn) -> dict[str, int]:
    from sqlalchemy import text

    out = {}
    for t in TABLES:
        out[t] = int(
            conn.execute(
                text(
                    "SELECT greatest(pg_total_relation_size(CAST(:t AS regclass)), "
                    "(SELECT coalesce(sum(pg_total_relation_size(relid)), 0) "
                    "FROM pg_partition_tree(CAST(:t AS regclass))))"
                ),
                {"t": t},
            ).scalar()
        )
    return out


def net(sz: dict[str, int], empty: dict[str, int]) -> dict[str, int]:
    return {t: max(0, sz[t] - empty[t]) for t in sz}


def rows(conn, table: str, where: str = "") -> int:
    from sqlalchemy import text

    return int(conn.execute(text(f"SELECT count(*) FROM {table} {where}")).scalar())


def drop_day(url: str, job_id: int, n: int) -> tuple[float, float, int]:
    """Fill a partition of 3 days ago with ``n`` raw rows (and level-0 rollups that count them, as
    ingest writes), then time ``prune_raw_steps`` and the bare DROP inside it."""
    from sqlalchemy import text

    from tpuwatch.server.db import make_engine, make_sessionmaker, transaction
    from tpuwatch.server.series import partitions
    from tpuwatch.server.series.rollups import COLUMNS as ROLLUP_COLUMNS
    from tpuwatch.server.series.rollups import prune_raw_steps

    engine = make_engine(url)
    now = time.time()
    day = now - now % DAY - 3 * DAY
    with engine.begin() as c:
        partitions.create_day(c, day)
        c.execute(
            text(
                "INSERT INTO steps (job_id, host_index, step, ts, duration, input_wait) "
                "SELECT :j, 100 + g % 8, 10000000 + g / 8, :d + (g % 86000), 1.0, 0.01 "
                "FROM generate_series(0, :n - 1) g"
            ),
            {"j": job_id, "d": day, "n": n},
        )
        c.execute(
            text(
                f"INSERT INTO step_rollups ({', '.join(ROLLUP_COLUMNS)}) "
                "SELECT job_id, 0, host_index, step - step % 16, count(*), "
                "sum(duration), min(duration), max(duration), min(step), max(step), sum(input_wait), "
                "max(input_wait), max(step), max(ts) FROM steps WHERE host_index >= 100 "
                "GROUP BY job_id, host_index, step - step % 16"
            )
        )
        size = int(
            c.execute(text("SELECT pg_total_relation_size(:t)"), {"t": partitions.name_for(day)}).scalar()
        )
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
        c.execute(text("VACUUM ANALYZE steps"))
    t0 = time.perf_counter()
    with transaction(make_sessionmaker(engine)) as s:
        done = prune_raw_steps(s, older_than_days=2, now=now)
    prune_s = time.perf_counter() - t0
    assert done["partitions"] >= 1, done
    # The bare DROP of another day, for the figure alone.
    with engine.begin() as c:
        partitions.create_day(c, day)
        c.execute(
            text(
                "INSERT INTO steps (job_id, host_index, step, ts, duration, input_wait) "
                "SELECT :j, 100, g, :d + (g % 86000), 1.0, 0.01 FROM generate_series(0, :n - 1) g"
            ),
            {"j": job_id, "d": day, "n": n},
        )
    with engine.begin() as c:
        t0 = time.perf_counter()
        partitions.drop(c, partitions.name_for(day))
    drop_s = time.perf_counter() - t0
    engine.dispose()
    return prune_s, drop_s, size


def prune_keys(url: str, job_id: int, n: int) -> tuple[float, int]:
    """Fill ``n`` key rows of batches past the ingest window (``n`` = a day of a 1,024-host pod by
    default), then time their pruning in rounds as the alert loop's leader does it."""
    from sqlalchemy import text

    from tpuwatch.server.db import make_engine, make_sessionmaker
    from tpuwatch.server.ingest import keys
    from tpuwatch.server.settings import Settings

    st = Settings()
    old = keys.window_cutoff(st.ingest_max_age_days, st.ingest_max_ahead_seconds, time.time()) - DAY
    engine = make_engine(url)
    with engine.begin() as c:
        c.execute(
            text(
                "INSERT INTO ingest_keys (job_id, stream_key, block, seen, first_at, last_at, digests) "
                "SELECT :j, g / 1350, g % 1350, -1, :t + g * 0.06, :t + g * 0.06 + 60, "
                "CAST(md5(g::text) AS bytea) || CAST(repeat('x', :d - 32) AS bytea) "
                "FROM generate_series(0, :n - 1) g"
            ),
            {"j": job_id, "t": old, "n": n, "d": keys.BLOCK * keys.DIGEST_BYTES},
        )
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
        c.execute(text("VACUUM ANALYZE ingest_keys"))
    t0 = time.perf_counter()
    gone = keys.prune_past_window(
        make_sessionmaker(engine), st.ingest_max_age_days, st.ingest_max_ahead_seconds, budget_s=1e9
    )
    took = time.perf_counter() - t0
    engine.dispose()
    return took, gone


def report(tag: str, sz: dict, counts: tuple, args, ref: int) -> None:
    """Print sizes and the extrapolation to 1,024 hosts x 86,400 steps: the reference hosts' raw
    rows are a fixed cost, the rest (deviating raw rows, rollups, batch keys) scales with hosts."""
    raw_ref, raw_other, n_rollups, n_batches = counts
    host_steps = args.hosts * args.seconds
    per_raw_row = sz["steps"] / max(1, raw_ref + raw_other)
    per_rollup = sz["step_rollups"] / max(1, n_rollups)
    per_batch = (sz["ingest_keys"] + sz["ingest_parts"]) / max(1, n_batches)
    for t in TABLES:
        print(f"storage_{tag}_{t}_bytes={sz[t]}")
    print(f"storage_{tag}_bytes_per_raw_row={per_raw_row:.1f}")
    print(f"storage_{tag}_bytes_per_rollup_row={per_rollup:.1f}")
    print(f"storage_{tag}_bytes_per_ingest_batch={per_batch:.1f}")
    print(f"storage_{tag}_bytes_per_host_step_measured={sum(sz.values()) / host_steps:.1f}")
    others = max(1, args.hosts - ref)
    raw_day = per_raw_row * DAY * raw_ref / args.seconds
    raw_day += per_raw_row * DAY * (TARGET_HOSTS - ref) * raw_other / (others * args.seconds)
    rollup_day = per_rollup * n_rollups / host_steps * TARGET_HOSTS * DAY
    batch_day = per_batch * TARGET_HOSTS * DAY / args.batch_seconds
    total = raw_day + rollup_day + batch_day
    print(f"storage_{tag}_1024_hosts_day_raw_gb={raw_day / 1e9:.2f}")
    print(f"storage_{tag}_1024_hosts_day_rollups_gb={rollup_day / 1e9:.2f}")
    print(f"storage_{tag}_1024_hosts_day_batch_keys_gb={batch_day / 1e9:.2f}")
    print(f"storage_{tag}_1024_hosts_day_total_gb={total / 1e9:.2f}")
    print(f"storage_{tag}_1024_hosts_day_every_step_a_row_gb={per_raw_row * TARGET_HOSTS * DAY / 1e9:.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=64)
    ap.add_argument("--seconds", type=int, default=1200, help="seconds of stepping at 1 step/s")
    ap.add_argument("--batch-seconds", type=int, default=1, help="a host's batch interval (agents: ~1 s)")
    ap.add_argument("--drop-rows", type=int, default=2_000_000, help="raw rows in the dropped partition")
    ap.add_argument(
        "--drop-keys", type=int, default=TARGET_HOSTS * DAY // 64, help="key rows past the window to prune"
    )
    args = ap.parse_args()

    from sqlalchemy import text
    from sqlalchemy.orm import Session

    from tpuwatch.server.db import make_engine, upgrade
    from tpuwatch.server.ingest import keys
    from tpuwatch.server.series.thinning import FULL_STEP_HOSTS

    with fresh_postgres() as url:
        upgrade(url)
        engine = make_engine(url)
        with engine.connect() as c:
            empty = sizes(c)  # the empty tables' pages (index roots, BRIN maps): no cost per step
        engine.dispose()
        job_id, rate = fill(url, args.hosts, args.seconds, args.batch_seconds)
        engine = make_engine(url)
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.execute(text("VACUUM ANALYZE"))
            sz = net(sizes(c), empty)
            host_steps = args.hosts * args.seconds
            ref = min(args.hosts, FULL_STEP_HOSTS)
            raw_ref = rows(c, "steps", f"WHERE host_index < {FULL_STEP_HOSTS}")
            raw_other = rows(c, "steps", f"WHERE host_index >= {FULL_STEP_HOSTS}")
            n_rollups = rows(c, "step_rollups")
            with Session(bind=c) as s:
                n_batches = keys.stored_count(s)
        engine.dispose()
        print(f"storage_empty_tables_bytes={sum(empty.values())} (subtracted below: a fixed cost)")
        print(f"storage_hosts={args.hosts}")
        print(f"storage_host_steps={host_steps}")
        print(f"storage_ingest_host_steps_per_s={rate:.0f}")
        print(f"storage_raw_rows_reference_hosts={raw_ref}")
        print(f"storage_raw_rows_other_hosts={raw_other}")
        print(f"storage_rollup_rows={n_rollups}")
        print(f"storage_batch_seconds={args.batch_seconds}")
        print(f"storage_batches={n_batches}")
        counts = (raw_ref, raw_other, n_rollups, n_batches)
        report("after_vacuum", sz, counts, args, ref)
        # VACUUM FULL rewrites the tables without the dead row versions the rollups' upserts leave
        # behind: the live size, which a long run approaches as autovacuum lets space be reused.
        engine = make_engine(url)
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.execute(text("VACUUM FULL"))
            sz = net(sizes(c), empty)
        engine.dispose()
        report("live", sz, counts, args, ref)
        prune_s, drop_s, size = drop_day(url, job_id, args.drop_rows)
        print(f"storage_dropped_partition_rows={args.drop_rows}")
        print(f"storage_dropped_partition_bytes={size}")
        print(f"storage_prune_day_s={prune_s:.3f}")
        print(f"storage_drop_partition_s={drop_s:.3f}")
        took, gone = prune_keys(url, job_id, args.drop_keys)
        print(f"storage_pruned_key_rows={gone} (batches={gone * 64})")
        print(f"storage_prune_day_of_keys_s={took:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
