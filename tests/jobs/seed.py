"""Jobs driven through the real ingest API, shaped like what the agent sends."""

from __future__ import annotations

import math
import time

import httpx

XSS_LINE = '<script>alert(1)</script><img src=x onerror="alert(2)"><b>bold?</b>'
OOM_TRACE = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 88, in <module>\n'
    "    state = train_step(state, batch)\n"
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: "
    "Attempting to allocate 2.50G. That was not possible. There are 1.20G free.; "
    "Ran out of memory in memory space hbm."
)


def post(c: httpx.Client, run_id: str, job: str, host: int, seq: int, **parts) -> dict:
    body = {"stream": f"{run_id}-{host}", "seq": seq, "run": {"run_id": run_id, "job": job, "host": host}}
    body.update(parts)
    r = c.post("/api/v1/ingest", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def steps(n: int, t0: float, base: float = 0.1, slow: float = 1.0, wait: float = 0.01, first: int = 1):
    """``n`` step rows ending near ``t0 + n * base``; the first is long (compilation)."""
    rows, t = [], t0
    for i in range(first, first + n):
        d = (20.0 if i == 1 else base * slow * (1 + 0.05 * math.sin(i / 30))) + wait
        t += d
        rows.append([i, t, d, wait])
    return rows


def failed_run(c: httpx.Client, job: str = "llama-oom", hosts: int = 2, n: int = 300, run_id: str = "fail-1"):
    """A multi-host run that steps, samples HBM, checkpoints, then dies of HBM OOM on host 0
    with a hostile line in its log; host 1 is the straggler. Returns the job id."""
    t0 = time.time() - 2 * 3600
    job_id = None
    for h in range(hosts):
        rows = steps(n, t0, slow=1.5 if h == hosts - 1 and hosts > 1 else 1.0)
        end = rows[-1][1]
        metrics = []
        for k in range(0, n, 10):
            ts = rows[k][1]
            for chip in range(2):
                metrics.append([ts, "tpu.hbm.used_bytes", chip, (10 + 5 * k / n + chip) * 2**30])
                metrics.append([ts, "tpu.hbm.total_bytes", chip, 16 * 2**30])
                metrics.append([ts, "tpu.duty_cycle_pct", chip, 80.0 + chip])
        events = [[t0, "start", "python train.py --model llama", {"argv": ["python", "train.py"]}]]
        events.append(
            [rows[n // 2][1], "checkpoint", "saved checkpoint", {"step": n // 2, "path": "gs://b/ckpt"}]
        )
        if h == 0:
            context = ["loading data", XSS_LINE, "step 299 loss 2.31"]
            events.append([end + 1, "error", OOM_TRACE, {"source": "traceback", "context": context}])
            events.append([end + 2, "archive", "", {"url": "gs://team-logs/llama/fail-1.log"}])
            events.append([end + 3, "exit", "", {"code": 1, "signal": None}])
        job_id = post(c, run_id, job, h, 0, steps=rows, metrics=metrics, events=events)["job_id"]
    return job_id


def good_run(
    c: httpx.Client, job: str = "llama-oom", n: int = 200, run_id: str = "good-1", ago: float = 86400
):
    t0 = time.time() - ago
    rows = steps(n, t0)
    events = [
        [t0, "start", "python train.py", None],
        [rows[-1][1] + 1, "exit", "", {"code": 0, "signal": None}],
    ]
    return post(c, run_id, job, 0, 0, steps=rows, events=events)["job_id"]


def running_run(c: httpx.Client, job: str = "resnet50", n: int = 100, run_id: str = "run-1"):
    t0 = time.time() - n * 0.12 - 25
    rows = steps(n, t0, wait=0.05)
    return post(c, run_id, job, 0, 0, steps=rows, events=[[t0, "start", "python resnet.py", None]])["job_id"]
