"""Ingest throughput through the real agent and server, next to the raw insert rate of the same
database measured in the same run; and the agent's cost per `step()` on the training thread.

    python bench/bench_ingest.py [--steps 1000000] [--skip-postgres]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import fresh_postgres, make_token, server_process  # noqa: E402


def step_cost(n: int = 2_000_000) -> float:
    """µs per `with mon.step():` on the training thread, with the writer thread running."""
    import tpuwatch

    with tempfile.TemporaryDirectory() as d:
        mon = tpuwatch.Monitor("bench", spool_dir=d, send=False, max_queue=n + 10)
        loop = range(n)
        t0 = time.perf_counter()
        for _ in loop:
            pass
        empty = time.perf_counter() - t0
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in loop:
                with mon.step():
                    pass
            best = min(best, time.perf_counter() - t0 - empty)
        mon.close(timeout=30)
    return best / n * 1e6


def raw_insert_rate(db_url: str, n: int, copy: bool = False) -> float:
    """Rows/s of a plain DBAPI executemany (or COPY) of step rows into the same migrated steps table."""
    from tpuwatch.server.db import make_engine

    engine = make_engine(db_url)
    # Ids come from the database: the table may already hold the agent run's job.
    with engine.begin() as conn:
        project = conn.exec_driver_sql(
            f"INSERT INTO projects (name, created_at) VALUES ('raw-{uuid.uuid4().hex[:12]}', 0) RETURNING id"
        ).scalar_one()
        job = conn.exec_driver_sql(
            "INSERT INTO jobs (project_id, run_id, name, status, started_at, last_seen_at, steps, "
            "errors, dropped_events, attrs) VALUES "
            f"({project}, 'raw', 'raw', 'running', 0, 0, 0, 0, 0, '{{}}') RETURNING id"
        ).scalar_one()
    rows = [(job, 0, i, 1.7e9 + i, 0.1, 0.01) for i in range(n)]
    sql = "INSERT INTO steps (job_id, host_index, step, ts, duration, input_wait) VALUES "
    raw = engine.raw_connection()
    try:
        cur = raw.cursor()
        marker = "?" if engine.dialect.name == "sqlite" else "%s"
        stmt = sql + "(" + ",".join([marker] * 6) + ")"
        t0 = time.perf_counter()
        for k in range(0, n, 20_000):
            if copy:
                with cur.copy(
                    "COPY steps (job_id, host_index, step, ts, duration, input_wait) FROM STDIN"
                ) as cp:
                    for row in rows[k : k + 20_000]:
                        cp.write_row(row)
            else:
                cur.executemany(stmt, rows[k : k + 20_000])
            raw.commit()
        elapsed = time.perf_counter() - t0
        cur.execute(f"DELETE FROM steps WHERE job_id = {job}")
        cur.execute(f"DELETE FROM jobs WHERE id = {job}")
        cur.execute(f"DELETE FROM projects WHERE id = {project}")
        raw.commit()
    finally:
        raw.close()
        engine.dispose()
    return n / elapsed


def agent_to_server_rate(url: str, token: str, n: int) -> tuple[float, float]:  # rate, record time
    """Steps/s from the first `step()` until the server has stored all of them."""
    import tpuwatch

    with tempfile.TemporaryDirectory() as d:
        mon = tpuwatch.Monitor("bench-ingest", server=url, token=token, spool_dir=d, max_queue=n + 10)
        done = threading.Event()
        t0 = time.perf_counter()
        for _ in range(n):
            with mon.step():
                pass
        record = time.perf_counter() - t0
        mon.close(timeout=300)
        while not done.is_set():
            req = urllib.request.Request(url + "/api/v1/jobs", headers={"Authorization": f"Bearer {token}"})
            jobs = json.load(urllib.request.urlopen(req, timeout=30))["jobs"]
            if jobs and jobs[0]["steps"] >= n:
                done.set()
            elif time.perf_counter() - t0 > 600:
                raise RuntimeError(f"only {jobs[0]['steps'] if jobs else 0} of {n} steps arrived")
            else:
                time.sleep(0.05)
        elapsed = time.perf_counter() - t0
    return n / elapsed, record


def run_db(label: str, db_url: str, n: int) -> None:
    from tpuwatch.server.db import upgrade

    upgrade(db_url)
    raw = raw_insert_rate(db_url, n)
    token = make_token(db_url)
    with tempfile.TemporaryDirectory() as data, server_process(db_url, data) as (url, _):
        rate, _ = agent_to_server_rate(url, token, n)
    print(f"ingest_{label}_steps_per_s={rate:,.0f}")
    print(f"raw_insert_{label}_rows_per_s={raw:,.0f}")
    print(f"ingest_{label}_vs_raw={rate / raw:.2f}")
    if label == "postgresql":
        print(f"raw_copy_{label}_rows_per_s={raw_insert_rate(db_url, n, copy=True):,.0f}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--steps", type=int, default=1_000_000)
    p.add_argument("--skip-postgres", action="store_true")
    args, _ = p.parse_known_args()
    print(f"agent_step_cost_us={step_cost():.3f}")
    with tempfile.TemporaryDirectory() as d:
        run_db("sqlite", f"sqlite:///{os.path.join(d, 'bench.db')}", args.steps)
    if not args.skip_postgres:
        with fresh_postgres() as url:
            run_db("postgresql", url, args.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
