"""Stall-to-alert latency: jobs recorded by the real agent stop stepping, and a webhook receiver
on loopback notes when each firing message arrives. Latency is measured from a job's last step.

    python bench/bench_alerts.py [--stalls 20] [--floor 2] [--eval 0.5] [--skip-postgres]

The latency is the floor (the least a stall may be) plus detection and delivery; the overhead
figure is that second part alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import fresh_postgres, make_token, server_process  # noqa: E402
from bench.fleet_watch import Receiver  # noqa: E402


def _post(url: str, token: str, batch: dict) -> None:
    req = urllib.request.Request(
        url + "/api/v1/ingest",
        data=json.dumps(batch).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        resp.read()


def run(db_url: str, stalls: int, floor: float, eval_s: float, prefix: str) -> None:
    rx = Receiver()
    env = {
        "TPUWATCH_ALERT_WEBHOOK_URL": rx.url,
        "TPUWATCH_STALL_FLOOR_SECONDS": str(floor),
        "TPUWATCH_ALERT_EVAL_SECONDS": str(eval_s),
        "TPUWATCH_SECRET_KEY": "bench",
        # 20 jobs share one token here; the per-token rate limit would delay their steps.
        "TPUWATCH_RATE_LIMIT_PER_SECOND": "0",
    }
    with tempfile.TemporaryDirectory() as d, server_process(db_url, d, env) as (url, _proc):
        token = make_token(db_url)
        # One driver thread plays every job, as its agent would: a batch every 0.25 s carrying the
        # steps made since (one every 0.05 s), or nothing but the heartbeat once the job hangs.
        names = [f"stall{i:02d}" for i in range(stalls)]
        start = time.time() + 3.0  # a few seconds of steps first: the threshold is learned
        # Stalls are spread over several evaluation rounds, so the latency covers every phase.
        stall_at = {n: start + i * eval_s * 0.37 for i, n in enumerate(names)}
        last: dict[str, float] = {}
        step = dict.fromkeys(names, 0)
        seq = dict.fromkeys(names, 0)
        sent_until = dict.fromkeys(names, time.time())
        deadline = time.monotonic() + 3.0 + stalls * eval_s + floor + 60
        while len(rx.arrivals) < stalls and time.monotonic() < deadline:
            now = time.time()
            for n in names:
                steps = []
                t = sent_until[n] + 0.05
                while t <= min(now, stall_at[n]):
                    step[n] += 1
                    steps.append([step[n], round(t, 6), 0.05, 0.0])
                    last[n] = t
                    t += 0.05
                if steps:
                    sent_until[n] = steps[-1][1]
                run_info = {"run_id": f"bench-{n}", "job": n, "host": 0, "attrs": {}}
                batch = {"v": 1, "stream": f"s-{n}", "seq": seq[n], "run": run_info, "steps": steps}
                seq[n] += 1
                _post(url, token, batch)
            time.sleep(max(0.0, 0.25 - (time.time() - now)))
    # A firing before the job stopped stepping would be a false alarm: count it apart.
    latencies, false = [], 0
    for name, times in rx.arrivals.items():
        real = [t for t in times if t >= last.get(name, 0)]
        false += len(times) - len(real)
        if real:
            latencies.append(real[0] - last[name])
    print(f"{prefix}alert_false_firings={false}")
    if len(latencies) < stalls:
        print(f"{prefix}alert_missing={stalls - len(latencies)}")
    if latencies:
        print(f"{prefix}alert_latency_median_s={statistics.median(latencies):.2f}")
        print(f"{prefix}alert_latency_max_s={max(latencies):.2f}")
        print(f"{prefix}alert_overhead_median_s={statistics.median(latencies) - floor:.2f}")
    print(f"{prefix}alert_messages={rx.count}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--stalls", type=int, default=20)
    p.add_argument("--floor", type=float, default=2.0, help="TPUWATCH_STALL_FLOOR_SECONDS for the run")
    p.add_argument("--eval", type=float, default=0.5, help="TPUWATCH_ALERT_EVAL_SECONDS for the run")
    p.add_argument("--skip-postgres", action="store_true")
    args, _ = p.parse_known_args()
    print(f"alert_stalls={args.stalls}")
    print(f"alert_floor_s={args.floor}")
    print(f"alert_eval_interval_s={args.eval}")
    with tempfile.TemporaryDirectory() as d:
        run(f"sqlite:///{d}/bench.db", args.stalls, args.floor, args.eval, "")
    if not args.skip_postgres:
        try:
            with fresh_postgres() as url:
                run(url, args.stalls, args.floor, args.eval, "pg_")
        except Exception as exc:  # no PostgreSQL here: say so, the SQLite figures stand
            print(f"pg_alert_skipped={type(exc).__name__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
