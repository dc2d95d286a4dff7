"""Dashboard speed on a long run: chart API latency (whole run and zoomed windows) for a job of
1,000,000 steps on each of 8 hosts, the job page's largest contentful paint in headless Chromium,
and the overview's render time with 500 jobs. SQLite, a real `tpuwatch server` on loopback.

    python bench/bench_dashboard.py [--steps 1000000] [--hosts 8] [--jobs 500] [--requests 60]

Targets: chart API p95 <= 150 ms, LCP <= 1 s, overview <= 200 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import server_process  # noqa: E402

BATCH = 20_000
CHROMIUM = "/usr/bin/chromium"


def fill(db_url: str, steps: int, hosts: int, jobs: int) -> tuple[str, int, float]:
    """Store the long run and ``jobs - 1`` short ones through the ingest service; returns the token,
    the long job's id and its ingest rate (steps/s, rollups included)."""
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
    rng = random.Random(1)
    t_start = time.time() - steps * 0.1 - 60

    def batch(run_id, job, host, seq, rows, events=()):
        run = RunInfo.model_construct(run_id=run_id, job=job, host=host, attrs={})
        return Batch.model_construct(
            v=1, stream=f"{run_id}-{host}", seq=seq, part="", run=run, sent_at=None,
            steps=rows, events=list(events), metrics=[], dropped=0,
        )  # fmt: skip

    t0 = time.perf_counter()
    job_id = None
    for h in range(hosts):
        slow = 1.3 if h == hosts - 1 else 1.0
        for k in range(0, steps, BATCH):
            rows = [
                (i, t_start + i * 0.1, (5.0 if i % 97_003 == 0 else 0.1 * slow + rng.random() * 0.01), 0.004)
                for i in range(k + 1, min(steps, k + BATCH) + 1)
            ]
            with transaction(sessions) as s:
                job_id = ingest(s, principal, batch("long", "llama-70b-v5p", h, k, rows)).job_id
    rate = steps * hosts / (time.perf_counter() - t0)
    for j in range(jobs - 1):
        rows = [(i, t_start + i, 0.2 + rng.random() * 0.05, 0.01) for i in range(1, 301)]
        events = [(t_start, "start", "python train.py", None)]
        if j % 10 == 0:
            events.append(
                (t_start + 301, "error", "RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm", None)
            )
            events.append((t_start + 302, "exit", "", {"code": 1, "signal": None}))
        with transaction(sessions) as s:
            ingest(s, principal, batch(f"short-{j}", f"sweep-{j % 50}", 0, 0, rows, events))
    engine.dispose()
    return token, job_id, rate


def timed_get(url: str, token: str) -> tuple[float, bytes]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    t0 = time.perf_counter()
    with urllib.request.urlopen(req, timeout=60) as r:
        body = r.read()
    return (time.perf_counter() - t0) * 1000, body


def latencies(urls: list[str], token: str) -> tuple[float, float, bytes]:
    timed_get(urls[0], token)  # warm the page cache and the connection pool
    ms, body = [], b""
    for u in urls:
        t, body = timed_get(u, token)
        ms.append(t)
    ms.sort()
    return statistics.median(ms), ms[max(0, int(round(0.95 * len(ms))) - 1)], body


def lcp(base: str, token: str, job_id: int, runs: int = 5) -> float | None:
    if not Path(CHROMIUM).exists():
        print(f"# {CHROMIUM} missing: LCP not measured", flush=True)
        return None
    from playwright.sync_api import sync_playwright

    script = """() => new Promise(resolve => {
        new PerformanceObserver(list => { const e = list.getEntries(); resolve(e[e.length - 1].startTime); })
          .observe({type: 'largest-contentful-paint', buffered: true});
    })"""
    values = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page(viewport={"width": 1360, "height": 900})
        page.goto(base + "/login")
        page.fill("input[name=token]", token)
        page.click("button[type=submit]")
        page.wait_for_selector("#jobs-table")
        for _ in range(runs + 1):
            page.goto(f"{base}/jobs/{job_id}", wait_until="load")
            values.append(page.evaluate(script))
        browser.close()
    return statistics.median(values[1:])  # the first load also fills the browser's cache


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1_000_000, help="steps per host of the long run")
    ap.add_argument("--hosts", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=500, help="jobs on the overview (the long run included)")
    ap.add_argument("--requests", type=int, default=60)
    args = ap.parse_args()

    from tpuwatch.server.db import upgrade

    with tempfile.TemporaryDirectory(prefix="tpuwatch-bench-") as d:
        db_url = f"sqlite:///{d}/bench.db"
        upgrade(db_url)
        token, job_id, rate = fill(db_url, args.steps, args.hosts, args.jobs)
        print(f"dashboard_steps_total={args.steps * args.hosts}")
        print(f"dashboard_ingest_steps_per_s={rate:.0f}")
        env = {"TPUWATCH_JOBS_PAGE_SIZE": str(args.jobs)}
        with server_process(db_url, d, extra_env=env) as (base, _proc):
            api = f"{base}/api/v1/jobs/{job_id}/steps"
            # Right after start the alert loop's first pass judges all 500 jobs and fires ~450
            # "lost" alerts at once (about 1.5 s of work sharing the GIL): reported on its own.
            p50, p95, _ = latencies([api] * 15, token)
            print(f"chart_during_first_alert_pass_p95_ms={p95:.1f}")
            time.sleep(3)
            p50, p95, body = latencies([api] * args.requests, token)
            full = json.loads(body)
            print(f"chart_full_p50_ms={p50:.1f}")
            print(f"chart_full_p95_ms={p95:.1f}")
            print(f"chart_full_points_per_series={max(len(s['x']) for s in full['series'])}")
            print(f"chart_full_series={len(full['series'])}")
            rng = random.Random(2)
            for name, width in (("zoom", 50_000), ("zoom_raw", 1_500)):
                urls = []
                for _ in range(args.requests):
                    start = rng.randrange(1, max(2, args.steps - width))
                    urls.append(f"{api}?start={start}&end={start + width}")
                p50, p95, body = latencies(urls, token)
                print(f"chart_{name}_p50_ms={p50:.1f}")
                print(f"chart_{name}_p95_ms={p95:.1f}")
                print(f"chart_{name}_source={json.loads(body)['source']}")
            p50, p95, body = latencies([f"{base}/"] * max(10, args.requests // 2), token)
            print(f"overview_jobs={body.count(b'data-job-id=')}")
            print(f"overview_render_p50_ms={p50:.1f}")
            print(f"overview_render_p95_ms={p95:.1f}")
            p50, p95, _ = latencies([f"{base}/jobs/{job_id}"] * 10, token)
            print(f"job_page_html_p50_ms={p50:.1f}")
            # Goodput of the long run: one host's rollups (about 4,000 buckets), its events, its
            # first and last 2,000 raw steps.
            p50, p95, body = latencies([f"{base}/api/v1/jobs/{job_id}/goodput"] * args.requests, token)
            print(f"goodput_api_steps={json.loads(body)['steps']}")
            print(f"goodput_api_p50_ms={p50:.1f}")
            print(f"goodput_api_p95_ms={p95:.1f}")
            p50, p95, _ = latencies([f"{base}/api/v1/runs/{job_id}/goodput"] * args.requests, token)
            print(f"goodput_run_api_p95_ms={p95:.1f}")
            value = lcp(base, token, job_id)
            if value is not None:
                print(f"job_page_lcp_ms={value:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
