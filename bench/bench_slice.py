"""The job page of a slice: a job of ``--hosts`` hosts (default 1,024) x 4 chips stored through the
ingest service, then the slice API (heatmap matrices and bands), the paged hosts API, which-host,
the page's HTML and its largest contentful paint in headless Chromium, from a real `tpuwatch
server` on loopback. SQLite by default; ``--pg`` for PostgreSQL (TPUWATCH_BENCH_PG_URL).

    python bench/bench_slice.py [--hosts 1024] [--steps 960] [--batch 120] [--requests 30] [--pg]

Targets: slice API < 300 ms, LCP < 1 s.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_dashboard import latencies, lcp  # noqa: E402
from bench.common import fresh_postgres, server_process  # noqa: E402

CHIPS = 4


def fill(db_url: str, hosts: int, steps: int, batch: int) -> tuple[str, int, float]:
    """Store the slice, batch by batch and host by host as its agents would; returns the token, the
    job's id and the ingest rate in host-steps per second."""
    from tpuwatch.server.db import make_engine, make_sessionmaker, transaction
    from tpuwatch.server.ingest.schemas import Batch, RunInfo
    from tpuwatch.server.ingest.service import ingest
    from tpuwatch.server.tokens.service import authenticate, create_token

    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    with transaction(sessions) as s:
        token = create_token(s, "bench")
    with transaction(sessions) as s:
        principal = authenticate(s, token)
    rng = random.Random(5)
    t0 = time.time() - steps - 60
    job_id = 0
    started = time.perf_counter()
    for lo in range(0, steps, batch):
        for h in range(hosts):
            slow, wait = (1.6, 0.5) if h == 700 else (1.3, 0.01) if h == 333 else (1.0, 0.01)
            rows = [
                (
                    i,
                    t0 + i + 1,
                    (30.0 if i == 0 else slow + rng.gauss(0, 0.02)),
                    wait + abs(rng.gauss(0, 0.002)),
                )
                for i in range(lo, min(steps, lo + batch))
            ]
            ts = t0 + min(steps, lo + batch)
            metrics = []
            for c in range(CHIPS):
                metrics += [
                    (ts, "tpu.hbm.used_bytes", c, (8 + rng.random() * 6) * 2.0**30),
                    (ts, "tpu.hbm.total_bytes", c, 16 * 2.0**30),
                    (ts, "tpu.duty_cycle_pct", c, 70 + rng.random() * 25),
                ]
            run = RunInfo.model_construct(run_id="pod", job="pod-v5p-4096", host=h, attrs={})
            b = Batch.model_construct(
                v=1, stream=f"pod-{h}", seq=lo, part="", run=run, sent_at=None,
                steps=rows, events=[], metrics=metrics, dropped=0,
            )  # fmt: skip
            with transaction(sessions) as s:
                job_id = ingest(s, principal, b).job_id
    rate = hosts * steps / (time.perf_counter() - started)
    engine.dispose()
    return token, job_id, rate


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hosts", type=int, default=1024)
    ap.add_argument("--steps", type=int, default=960, help="steps per host")
    ap.add_argument("--batch", type=int, default=120, help="steps per batch")
    ap.add_argument("--requests", type=int, default=30)
    ap.add_argument("--pg", action="store_true", help="PostgreSQL instead of SQLite")
    args = ap.parse_args()

    from tpuwatch.server.db import upgrade

    with tempfile.TemporaryDirectory(prefix="tpuwatch-bench-") as d:
        with fresh_postgres() if args.pg else contextlib.nullcontext(f"sqlite:///{d}/bench.db") as db_url:
            upgrade(db_url)
            token, job_id, rate = fill(db_url, args.hosts, args.steps, args.batch)
            tag = "pg" if args.pg else "sqlite"
            print(f"slice_db={tag}")
            print(f"slice_hosts={args.hosts}")
            print(f"slice_chips={args.hosts * CHIPS}")
            print(f"slice_ingest_host_steps_per_s={rate:.0f}")
            with server_process(db_url, d) as (base, _proc):
                time.sleep(2)  # the alert loop's first pass
                api = f"{base}/api/v1/jobs/{job_id}"
                for name, url in (
                    ("slice_api", f"{api}/slice"),
                    ("hosts_api", f"{api}/hosts?per_page=25"),
                    ("which_host_api", f"{api}/which-host"),
                    ("job_page_html", f"{base}/jobs/{job_id}"),
                    ("postmortem_html", f"{base}/jobs/{job_id}/postmortem"),
                ):
                    p50, p95, body = latencies([url] * args.requests, token)
                    print(f"{name}_p50_ms={p50:.1f}")
                    print(f"{name}_p95_ms={p95:.1f}")
                    print(f"{name}_bytes={len(body)}")
                    if name == "slice_api":
                        data = json.loads(body)
                        print(f"slice_api_cells={len(data['hosts']) * len(data['steps'])}")
                value = lcp(base, token, job_id)
                if value is not None:
                    print(f"slice_page_lcp_ms={value:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
