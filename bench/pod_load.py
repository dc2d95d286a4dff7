"""Many real agents in one process: ``Monitor`` objects with their own senders, one per simulated
host of a pod slice, all sharing the job's token. Used by bench/bench_pod.py and the pod-scale test.

    python -m bench.pod_load --server URL --token T --run-id R --first-host 0 --hosts 256 \\
        --seconds 20 --rate 2 --spool DIR

Every host records ``seconds * rate`` steps (numbered 1..n) in step with the others, as synchronous
training does, then closes its monitor (which delivers what is left). The last line printed is a
JSON object: the hosts' summed sender statistics and whether every spool was emptied.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def run(args: argparse.Namespace) -> dict:
    from tpuwatch.monitor import Monitor

    monitors = [
        Monitor(
            args.job,
            server=args.server,
            token=args.token,
            run_id=args.run_id,
            host_index=host,
            spool_dir=args.spool,
            send=True,
        )
        for host in range(args.first_host, args.first_host + args.hosts)
    ]
    period = 1.0 / args.rate
    steps = round(args.seconds * args.rate)
    start = time.monotonic()
    for i in range(steps):
        delay = start + (i + 1) * period - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        for mon in monitors:
            mon.record_step(period, input_wait=0.001)
    stepped_until = time.time()
    with ThreadPoolExecutor(max_workers=len(monitors)) as pool:
        list(pool.map(lambda m: m.close(timeout=args.close_timeout), monitors))
    totals: dict = {
        "hosts": len(monitors),
        "steps_per_host": steps,
        "stepped_until": stepped_until,
        "errors": [],
    }
    for mon in monitors:
        stats = mon._sender_thread.sender.stats
        for name in (
            "sent_batches",
            "sent_events",
            "duplicates",
            "rejected_batches",
            "throttled",
            "busy",
            "requests",
            "request_bytes",
        ):
            totals[name] = totals.get(name, 0) + getattr(stats, name)
        totals["server_errors"] = totals.get("server_errors", 0) + stats.server_errors
        totals["errors"].extend(stats.errors[:3])
    left = [p for p in Path(args.spool).rglob("*.seg")]
    totals["segments_left"] = len(left)
    totals["threads"] = threading.active_count()
    return totals


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--server", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--run-id", required=True)
    p.add_argument("--job", default="pod")
    p.add_argument("--first-host", type=int, default=0)
    p.add_argument("--hosts", type=int, default=64)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--rate", type=float, default=2.0, help="steps per second per host")
    p.add_argument("--spool", required=True)
    p.add_argument("--close-timeout", type=float, default=30.0)
    args = p.parse_args(argv)
    print(json.dumps(run(args)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
