"""The host emulator beside real agents: one job of N hosts at 2 steps/s, first as real ``Monitor``
objects (bench/pod_load.py, 128 to a process, as bench/bench_pod.py runs them), then emulated
(bench/emulator.py), each against a fresh server and database. Printed side by side: the requests
per host per minute, the bytes and steps per request, the answers, and what the server stored.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import nullcontext
from pathlib import Path

from bench.common import fresh_postgres, make_token, server_process
from bench.fleet_watch import cpu_seconds, db_bytes

ROOT = Path(__file__).resolve().parent.parent
RATE = 2.0
HOSTS_PER_PROCESS = 128


def _agents(url: str, token: str, run_id: str, n: int, seconds: float, tmp: str) -> dict:
    procs = []
    for first in range(0, n, HOSTS_PER_PROCESS):
        cmd = [sys.executable, "-m", "bench.pod_load", "--server", url, "--token", token, "--run-id", run_id]
        cmd += ["--first-host", str(first), "--hosts", str(min(HOSTS_PER_PROCESS, n - first))]
        cmd += ["--seconds", str(seconds), "--rate", str(RATE), "--spool", f"{tmp}/spool{first}"]
        procs.append(subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True))
    outs = [json.loads(p.communicate(timeout=seconds + 300)[0].strip().splitlines()[-1]) for p in procs]
    total = {k: sum(o.get(k, 0) for o in outs) for k in ("requests", "request_bytes", "sent_events")}
    total.update({k: sum(o.get(k, 0) for o in outs) for k in ("throttled", "busy", "server_errors")})
    total["batches_left"] = sum(o.get("segments_left", 0) for o in outs)
    return total


def _emulated(url: str, token: str, run_id: str, n: int, seconds: float, tmp: str) -> dict:
    job = dict(name="pod", run_id=run_id, token=token, hosts=n, rate=RATE)
    plan = {"server": url, "seconds": seconds, "heartbeat": False, "jobs": [job]}
    path = f"{tmp}/plan.json"
    Path(path).write_text(json.dumps(plan))
    out = subprocess.run(
        [sys.executable, "-m", "bench.emulator", path], cwd=ROOT, capture_output=True, text=True
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    total = dict(result["stats"])
    total["batches_left"] = result["batches_left"]
    return total


def _stored(db_url: str) -> dict:
    from sqlalchemy import text

    from tpuwatch.server.db import make_engine

    engine = make_engine(db_url)
    with engine.connect() as conn:
        q = lambda sql: int(conn.scalar(text(sql)) or 0)  # noqa: E731
        out = dict(
            steps=q("SELECT sum(steps) FROM job_hosts"),
            raw_rows=q("SELECT count(*) FROM steps"),
            rollup_rows=q("SELECT count(*) FROM step_rollups"),
            key_rows=q("SELECT count(*) FROM ingest_keys"),
            hosts=q("SELECT count(*) FROM job_hosts"),
        )
    engine.dispose()
    return out


def _one(kind: str, n: int, seconds: float, db: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="tpuwatch-bench-compare-") as tmp:
        dbs = fresh_postgres() if db == "postgresql" else nullcontext(f"sqlite:///{tmp}/tpuwatch.db")
        with dbs as db_url:
            from tpuwatch.server.db import upgrade

            upgrade(db_url)
            token = make_token(db_url)
            with server_process(db_url, f"{tmp}/data", {"TPUWATCH_SECRET_KEY": "bench"}) as (url, server):
                size0, cpu0, t0 = db_bytes(db_url), cpu_seconds(server.pid) or 0.0, time.monotonic()
                load = os.getloadavg()[0]
                run = _agents if kind == "agents" else _emulated
                total = run(url, token, uuid.uuid4().hex, n, seconds, tmp)
                time.sleep(2.0)  # what the last answers stored is committed
                total.update(_stored(db_url))
                total["bytes"] = db_bytes(db_url) - size0
                total["server_cpu"] = (cpu_seconds(server.pid) or cpu0) - cpu0
                total["wall"] = time.monotonic() - t0
                total["load"] = load
    return total


def run_pair(n: int, seconds: float, db: str) -> None:
    sides = {kind: _one(kind, n, seconds, db) for kind in ("agents", "emulator")}
    label = f"fleet_compare_{n}"
    print(f"{label}_hosts={n} steps_per_s={RATE:g} seconds={seconds:g} db={db} (real agents, then emulated)")

    def row(name: str, fn, fmt: str = "{:.1f}") -> None:
        a, e = (fn(sides[k]) for k in ("agents", "emulator"))
        ratio = f"{e / a:.2f}" if a else "-"
        print(f"{label}_{name:<28} agents={fmt.format(a):>10} emulator={fmt.format(e):>10} ratio={ratio}")

    minutes = seconds / 60
    row("requests_per_host_per_min", lambda s: s["requests"] / n / minutes)
    row("bytes_per_request", lambda s: s["request_bytes"] / max(1, s["requests"]), "{:.0f}")
    row("steps_per_request", lambda s: s["steps"] / max(1, s["requests"]))
    row("answers_429_503_5xx", lambda s: s["throttled"] + s["busy"] + s["server_errors"], "{:.0f}")
    row("stored_steps", lambda s: s["steps"], "{:.0f}")
    row("stored_raw_step_rows", lambda s: s["raw_rows"], "{:.0f}")
    row("stored_rollup_rows", lambda s: s["rollup_rows"], "{:.0f}")
    row("stored_batch_keys", lambda s: s["key_rows"], "{:.0f}")
    row("stored_bytes_per_host_step", lambda s: s["bytes"] / max(1, s["steps"]))
    row("server_cpu_ms_per_request", lambda s: s["server_cpu"] * 1000 / max(1, s["requests"]), "{:.2f}")
    row("batches_left_unsent", lambda s: s["batches_left"], "{:.0f}")
    row("load_avg_1m_at_start", lambda s: s["load"], "{:.2f}")
    sys.stdout.flush()
