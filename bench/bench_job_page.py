"""The job page an engineer lives in, on a long live run: 1,000,000 steps, 1,000,000 lines of live
log, a loss logged every 10 steps and HBM sampled every 10 s. Times every API call the page makes
(the page itself, its live-facts and log-tail polls, the log's level filter and search, the step
and training charts, zoomed or not) and its largest contentful paint in headless Chromium.
SQLite, a real `tpuwatch server` on loopback; the data are stored through the ingest service in
bulk batches, not over HTTP.

    python bench/bench_job_page.py [--steps 1000000] [--lines 1000000] [--requests 40]

Targets: every API call the page makes after it loaded (polls, filters, zoom) p95 < 150 ms; the
page itself (its HTML, and its JSON twin) is judged by its paint: LCP < 1 s. Wall times: on a
busy machine a p95 of a few dozen requests carries its neighbours' load.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_dashboard import latencies, lcp  # noqa: E402
from bench.common import server_process  # noqa: E402

BATCH = 20_000
STEP_S = 0.1


def fill(db_url: str, steps: int, lines: int) -> tuple[str, int, float]:
    """Store the run; returns the token, the job id and the seconds the seeding took."""
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
    rng = random.Random(3)
    # A live run: its last step was just now.
    t_start = time.time() - steps * STEP_S - 5
    attrs = {"run_name": "lr 3e-4", "commit": "0123456789ab", "dirty": False, "config_digest": "feedc0ffee00"}
    run = RunInfo.model_construct(run_id="live", job="gemma-7b-v5e", host=0, attrs=attrs)
    seq = 0

    def put(**parts):
        nonlocal seq
        body = dict(steps=[], events=[], metrics=[], logs=[], dropped=0)
        body.update(parts)
        b = Batch.model_construct(v=1, stream="live-0", seq=seq, part="", run=run, sent_at=None, **body)
        seq += 1
        with transaction(sessions) as s:
            return ingest(s, principal, b).job_id

    t0 = time.perf_counter()
    job_id = put(events=[(t_start, "start", "python train.py --config gemma.yaml", {"argv": ["python"]})])
    per_step = lines / steps
    line_no = 0
    for k in range(0, steps, BATCH):
        hi = min(steps, k + BATCH)
        rows = [(i, t_start + i * STEP_S, STEP_S + rng.random() * 0.01, 0.003) for i in range(k + 1, hi + 1)]
        metrics = [
            (t_start + i * STEP_S, "loss", None, 3.0 / (1 + i / 1e4), i) for i in range(k + 10, hi + 1, 10)
        ]
        metrics += [
            (t_start + i * STEP_S, "tpu.hbm.used_bytes", c, 12e9 + c * 1e8)
            for i in range(k + 100, hi + 1, 100)
            for c in (0, 1)
        ]
        metrics += [
            (t_start + i * STEP_S, "tpu.hbm.total_bytes", c, 16e9)
            for i in range(k + 100, hi + 1, 100)
            for c in (0, 1)
        ]
        logs = []
        want = int(hi * per_step)
        while line_no < want:
            line_no += 1
            step = max(1, int(line_no / per_step))
            text = f"step {step} loss {3.0 / (1 + step / 1e4):.4f} lr 3e-4 tokens/s 81234"
            if line_no % 50_000 == 0:
                text = f"W1123 12:00:00.0 input.cc:88] prefetch buffer empty at step {step}"
            logs.append((t_start + step * STEP_S, line_no, "stdout", text))
        job_id = put(steps=rows, metrics=metrics, logs=logs)
    engine.dispose()
    return token, job_id, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--lines", type=int, default=1_000_000, help="live-log lines")
    ap.add_argument("--requests", type=int, default=40, help="requests per API call timed")
    args = ap.parse_args()

    from tpuwatch.server.db import upgrade

    with tempfile.TemporaryDirectory(prefix="tpuwatch-bench-") as d:
        db_url = f"sqlite:///{d}/bench.db"
        upgrade(db_url)
        token, job_id, took = fill(db_url, args.steps, args.lines)
        print(f"job_page_steps={args.steps}")
        print(f"job_page_log_lines={args.lines}")
        print(f"job_page_seed_s={took:.1f}")
        with server_process(db_url, d) as (base, _proc):
            time.sleep(2)  # the alert loop's first pass
            j = f"{base}/api/v1/jobs/{job_id}"
            f = f"{base}/fragments/jobs/{job_id}"
            rng = random.Random(4)
            zooms = []
            for _ in range(args.requests):
                start = rng.randrange(1, max(2, args.steps - 50_000))
                zooms.append(f"{j}/steps?points=2000&start={start}&end={start + 50_000}")
            calls = {
                "page_html": [f"{base}/jobs/{job_id}"],
                "page_json": [f"{base}/jobs/{job_id}?format=json"],
                "live_fragment": [f"{f}/live"],
                "log_tail": [f"{f}/log"],
                "log_after": [f"{f}/log?after=1"],
                "log_level_warning": [f"{f}/log?level=warning"],
                "log_level_error": [f"{f}/log?level=error"],
                "log_search": [f"{f}/log?q=prefetch+buffer"],
                "log_search_rare": [f"{f}/log?q=no+such+text"],
                "steps_full": [f"{j}/steps?points=2000"],
                "steps_zoom": zooms,
                "training": [f"{j}/training"],
            }
            worst = (0.0, "")
            for name, urls in calls.items():
                whole = name.startswith("page_")  # the page itself: its time is part of the paint
                if len(urls) == 1:
                    urls = urls * (max(10, args.requests // 2) if whole else args.requests)
                p50, p95, body = latencies(urls, token)
                if not whole:
                    worst = max(worst, (p95, name))
                label = f"job_{name}" if whole else f"job_page_api_{name}"
                print(f"{label}_p50_ms={p50:.1f}")
                print(f"{label}_p95_ms={p95:.1f} bytes={len(body)}")
            print(f"job_page_api_worst_p95_ms={worst[0]:.1f} ({worst[1]}; target < 150)")
            value = lcp(base, token, job_id)
            if value is not None:
                print(f"job_page_1m_lcp_ms={value:.0f} (target < 1000)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
