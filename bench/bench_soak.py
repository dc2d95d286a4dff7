"""Soak: a steady 20,000 events/s into a `tpuwatch server` on PostgreSQL, through the agent's own
HTTP transport, watching the server's memory (RSS) and the ingest latency.

    python bench/bench_soak.py                 # the full soak, 10 minutes (what `make bench` runs)
    python bench/bench_soak.py --minutes 1     # a quick look

Memory is "flat" when the mean RSS of the last window differs from the first window after warm-up
by less than 10% (windows of one minute, shorter for short runs). Also printed: server CPU (so
events/s per core), and the bytes PostgreSQL uses per stored step (table and indexes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import fresh_postgres, make_token, server_process  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def pg_backend_cpu(database: str) -> float:
    """CPU seconds of the PostgreSQL backends serving ``database`` (their titles name it)."""
    total = 0.0
    for cmd in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if database in cmd.read_bytes().decode(errors="replace") and b"postgres:" in cmd.read_bytes():
                total += cpu_seconds(int(cmd.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return total


class Agent(threading.Thread):
    """One simulated host: a batch of ``per_batch`` steps every ``interval`` seconds, on schedule."""

    def __init__(self, url: str, token: str, index: int, per_batch: int, interval: float, until: float):
        super().__init__(daemon=True)
        from tpuwatch.transport import HttpTransport

        self.transport = HttpTransport(url, token, timeout=30)
        self.index, self.per_batch, self.interval, self.until = index, per_batch, interval, until
        self.latencies: list[tuple[float, float]] = []  # (when, seconds)
        self.sent = 0
        self.errors = 0
        self.max_lag = 0.0

    def run(self) -> None:
        start = time.monotonic()
        seq, step = 0, 1
        while True:
            due = start + seq * self.interval
            if due >= self.until:
                break
            now = time.monotonic()
            if due > now:
                time.sleep(due - now)
            else:
                self.max_lag = max(self.max_lag, now - due)
            wall = time.time()
            rows = [
                [step + i, wall - (self.per_batch - i) * 1e-4, 0.0001, 0.00001] for i in range(self.per_batch)
            ]
            body = json.dumps(
                {
                    "stream": f"soak-{self.index}",
                    "seq": seq,
                    "run": {"run_id": f"soak-run-{self.index}", "job": "soak", "host": self.index},
                    "steps": rows,
                },
                separators=(",", ":"),
            ).encode()
            t0 = time.monotonic()
            try:
                reply = self.transport.send(body)
                ok = reply.ok
            except Exception:
                ok = False
            t1 = time.monotonic()
            if ok:
                self.latencies.append((t1, t1 - t0))
                self.sent += self.per_batch
            else:
                self.errors += 1
            seq += 1
            step += self.per_batch
        self.transport.close()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=10.0, help="length of the soak (default 10)")
    ap.add_argument("--rate", type=int, default=20_000, help="events per second (default 20000)")
    ap.add_argument("--agents", type=int, default=8, help="simulated hosts (default 8)")
    ap.add_argument(
        "--batches-per-s", type=float, default=4.0, help="per agent (default 4, as the agent does)"
    )
    args, _ = ap.parse_known_args()  # run_all passes its own arguments through

    duration = args.minutes * 60
    warmup = min(30.0, duration / 6)
    window = min(60.0, (duration - warmup) / 3)
    per_batch = max(1, round(args.rate / args.agents / args.batches_per_s))
    with fresh_postgres() as db, tempfile.TemporaryDirectory() as data:
        # The soak measures the server, not the limiter: one token per host would be the same.
        with server_process(db, data, {"TPUWATCH_RATE_LIMIT_PER_SECOND": "0"}) as (url, proc):
            token = make_token(db)  # after the server has migrated the new database
            t_start = time.monotonic()
            until = t_start + duration
            agents = [
                Agent(url, token, i, per_batch, 1.0 / args.batches_per_s, until) for i in range(args.agents)
            ]
            for a in agents:
                a.start()
            samples = []  # (when, rss, cpu)
            dbname = db.rsplit("/", 1)[-1]
            pg_cpu = None
            while any(a.is_alive() for a in agents):
                now = time.monotonic()
                samples.append((now, rss_bytes(proc.pid), cpu_seconds(proc.pid)))
                if pg_cpu is None and now >= t_start + warmup:
                    pg_cpu = (now, pg_backend_cpu(dbname))
                time.sleep(1.0)
            pg_cores = float("nan")
            if pg_cpu is not None:
                pg_cores = (pg_backend_cpu(dbname) - pg_cpu[1]) / (time.monotonic() - pg_cpu[0])
            for a in agents:
                a.join()
            elapsed = time.monotonic() - t_start
            from sqlalchemy import text

            from tpuwatch.server.db import make_engine

            engine = make_engine(db)
            with engine.connect() as c:
                stored = c.execute(text("SELECT count(*) FROM steps")).scalar()
                table_bytes = c.execute(text("SELECT pg_total_relation_size('steps')")).scalar()
            engine.dispose()

    sent = sum(a.sent for a in agents)
    lat = [s for a in agents for _, s in a.latencies]
    first = [r for t, r, _ in samples if t_start + warmup <= t < t_start + warmup + window]
    last = [r for t, r, _ in samples if t >= t_start + duration - window]
    rss_first, rss_last = statistics.mean(first), statistics.mean(last)
    growth = (rss_last - rss_first) / rss_first * 100
    steady = [(t, c) for t, _, c in samples if t >= t_start + warmup]
    cores = (
        (steady[-1][1] - steady[0][1]) / (steady[-1][0] - steady[0][0]) if len(steady) > 1 else float("nan")
    )
    rate = sent / elapsed
    figures = {
        "soak_minutes": round(args.minutes, 2),
        "soak_target_events_per_s": args.rate,
        "soak_events_per_s": round(rate),
        "soak_events_sent": sent,
        "soak_events_stored": stored,
        "soak_send_errors": sum(a.errors for a in agents),
        "soak_max_schedule_lag_s": round(max(a.max_lag for a in agents), 3),
        "soak_ingest_latency_p50_ms": round(pct(lat, 0.50) * 1000, 1),
        "soak_ingest_latency_p99_ms": round(pct(lat, 0.99) * 1000, 1),
        "soak_ingest_latency_max_ms": round(max(lat) * 1000, 1) if lat else float("nan"),
        "soak_server_rss_first_mb": round(rss_first / 2**20, 1),
        "soak_server_rss_last_mb": round(rss_last / 2**20, 1),
        "soak_server_rss_growth_pct": round(growth, 1),
        "soak_rss_flat_within_10pct": int(abs(growth) < 10),
        "soak_server_cpu_cores": round(cores, 2),
        "soak_events_per_s_per_core": round(rate / cores) if cores > 0 else float("nan"),
        "soak_pg_backend_cpu_cores": round(pg_cores, 2),
        "soak_events_per_s_per_core_with_db": round(rate / (cores + pg_cores))
        if pg_cores > 0
        else float("nan"),
        "soak_pg_bytes_per_step": round(table_bytes / stored, 1) if stored else float("nan"),
    }
    for k, v in figures.items():
        print(f"{k}={v}")
    return 0 if stored == sent else 1


if __name__ == "__main__":
    sys.exit(main())
