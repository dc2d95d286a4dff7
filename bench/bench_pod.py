"""A pod slice against one server: N real agents (``Monitor`` objects with their own senders, spread
over processes, one token, 2 steps/s each) against a real `tpuwatch server`, then a burst of
concurrent connections, then SIGTERM.

    python bench/bench_pod.py [--agents 1024] [--seconds 120] [--db sqlite|postgresql|both]
                              [--burst 2000]

Reports steps expected vs stored, seconds from a step to its storage (p50, p99; sampled every half
second from each host's stored count), 429/503/5xx counts as the agents heard them, the server's CPU
and RSS, the worst /healthz and GET /api/v1/jobs times during the run, the burst's answers and how
soon after it the server serves normally, the SIGTERM stop time, and bytes stored per host-step.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import fresh_postgres, make_token, server_process  # noqa: E402

HOSTS_PER_PROCESS = 128
TICK = os.sysconf("SC_CLK_TCK")


def _proc_usage(pid: int) -> tuple[float, int]:
    """CPU seconds used so far and resident bytes of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICK
    rss = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    return cpu, rss


class Watch(threading.Thread):
    """Every half second: each host's stored step count (for step-to-storage), the read probes, and
    the server's CPU and RSS."""

    def __init__(self, url: str, token: str, db_url: str, run_id: str, pid: int) -> None:
        super().__init__(daemon=True)
        from tpuwatch.server.db import make_engine

        self.url, self.token, self.run_id, self.pid = url, token, run_id, pid
        self.engine = make_engine(db_url)
        self.latencies: list[float] = []
        self.seen: dict[int, int] = {}
        self.worst = {"/healthz": 0.0, "/api/v1/jobs": 0.0}
        self.bad_reads = 0
        self.rss_max = 0
        self.pace: list[float] = []  # the interval the server asked of each host, every half second
        self.cpu_per_batch = 0.0
        self.stop = threading.Event()

    def run(self) -> None:
        import httpx
        from sqlalchemy import select

        from tpuwatch.server.models import Job, JobHost

        query = (
            select(JobHost.host_index, JobHost.last_step, JobHost.last_step_at)
            .join(Job, Job.id == JobHost.job_id)
            .where(Job.run_id == self.run_id)
        )
        with httpx.Client(base_url=self.url, timeout=30.0) as client:
            while not self.stop.wait(0.5):
                for path in self.worst:
                    t0 = time.monotonic()
                    try:
                        reply = client.get(path, headers={"Authorization": f"Bearer {self.token}"})
                        ok = reply.is_success
                        if path == "/healthz" and ok and "ingest" in reply.json():
                            self.pace.append(reply.json()["ingest"]["pace_seconds"])
                            self.cpu_per_batch = reply.json()["ingest"]["cpu_ms_per_batch"]
                    except httpx.HTTPError:
                        ok = False
                    self.worst[path] = max(self.worst[path], time.monotonic() - t0)
                    self.bad_reads += not ok
                with self.engine.connect() as conn:
                    rows = conn.execute(query).all()
                now = time.time()
                for host, last, last_at in rows:
                    before = self.seen.get(host, 0)
                    if last and last > before and last_at:
                        # Steps come every 0.5 s: step k ended about (last - k) * 0.5 s before last_at.
                        self.latencies.extend(now - (last_at - j * 0.5) for j in range(last - before))
                        self.seen[host] = last
                try:
                    self.rss_max = max(self.rss_max, _proc_usage(self.pid)[1])
                except OSError:
                    pass
        self.engine.dispose()


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, math.ceil(q * len(values)) - 1)]


async def _burst(port: int, n: int, token: str) -> dict[str, int]:
    """``n`` connections at once, half of them agents' batches, half reads of the jobs list."""
    from tests.ops.test_admission import _batch

    run_id = uuid.uuid4().hex

    async def one(i: int) -> str:
        if i % 2:
            request = f"GET /api/v1/jobs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
            body = b""
        else:
            body = _batch(run_id, i)
            request = (
                f"POST /api/v1/ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                f"X-Tpuwatch-Host: burst/{i}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n"
            )
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            try:
                writer.write((request + "Connection: close\r\n\r\n").encode() + body)
                await writer.drain()
                return (await asyncio.wait_for(reader.readline(), 60)).split()[1].decode()
            finally:
                writer.close()
        except (OSError, IndexError, TimeoutError) as exc:
            return type(exc).__name__

    results = await asyncio.gather(*[one(i) for i in range(n)])
    return {k: results.count(k) for k in sorted(set(results))}


def _stored(db_url: str, run_id: str) -> tuple[int, int, int]:
    """Stored steps of the run (the hosts' counts), hosts, and bytes of the step tables."""
    from sqlalchemy import func, select, text

    from tpuwatch.server.db import make_engine
    from tpuwatch.server.models import Job, JobHost

    engine = make_engine(db_url)
    with engine.connect() as conn:
        steps, hosts = conn.execute(
            select(func.coalesce(func.sum(JobHost.steps), 0), func.count())
            .join(Job, Job.id == JobHost.job_id)
            .where(Job.run_id == run_id)
        ).one()
        if engine.dialect.name == "postgresql":
            size = conn.scalar(
                text(
                    "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() "
                    "AND c.relkind IN ('r', 'p') AND c.relname LIKE 'step%'"
                )
            )
        else:
            size = Path(db_url.split("///", 1)[1]).stat().st_size  # the whole file: an upper bound
    engine.dispose()
    return int(steps), int(hosts), int(size)


def _pin(pid: int, cpus: set[int]) -> None:
    """Keep a process (its threads too: new threads inherit it) on ``cpus``."""
    for task in os.listdir(f"/proc/{pid}/task"):
        os.sched_setaffinity(int(task), cpus)


def _pin_local_postgres(cpus: set[int]) -> dict[int, set[int]]:
    """Put this machine's PostgreSQL processes (and, through the postmaster, the backends it
    forks) on ``cpus`` beside the server; returns what to restore."""
    before = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() not in ("postgres", "postmaster"):
                    continue
            before[int(pid)] = os.sched_getaffinity(int(pid))
            os.sched_setaffinity(int(pid), cpus)
        except OSError:
            continue
    return before


def _restore(affinities: dict[int, set[int]]) -> None:
    for pid, cpus in affinities.items():
        try:
            os.sched_setaffinity(pid, cpus)
        except OSError:
            pass


def _log_tail(tmp: str, size: int) -> bytes:
    return Path(f"{tmp}/data/server.log").read_bytes()[-size:]


def run_one(db: str, agents: int, seconds: float, burst: int, pin: bool = False) -> None:
    label = f"pod_{db}"
    run_id = uuid.uuid4().hex
    with tempfile.TemporaryDirectory(prefix="tpuwatch-bench-pod-") as tmp:
        dbs = fresh_postgres() if db == "postgresql" else nullcontext(f"sqlite:///{tmp}/tpuwatch.db")
        with dbs as db_url:
            from tpuwatch.server.db import upgrade

            upgrade(db_url)
            token = make_token(db_url)
            with server_process(db_url, f"{tmp}/data", {"PYTHONFAULTHANDLER": "1"}) as (url, server):
                everyone = os.sched_getaffinity(0)
                agent_cpus = everyone - {min(everyone)} if pin and len(everyone) > 1 else everyone
                restore: dict[int, set[int]] = {}
                if pin and len(everyone) > 1:
                    _pin(server.pid, {min(everyone)})
                    if db == "postgresql" and ("127.0.0.1" in db_url or "localhost" in db_url):
                        restore = _pin_local_postgres({min(everyone)})  # the database is the server's
                cpu0, _ = _proc_usage(server.pid)
                watch = Watch(url, token, db_url, run_id, server.pid)
                watch.start()
                t0 = time.monotonic()
                children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                procs = []
                for first in range(0, agents, HOSTS_PER_PROCESS):
                    n = min(HOSTS_PER_PROCESS, agents - first)
                    cmd = [sys.executable, "-m", "bench.pod_load", "--server", url, "--token", token]
                    cmd += ["--run-id", run_id, "--first-host", str(first), "--hosts", str(n)]
                    cmd += ["--seconds", str(seconds), "--spool", f"{tmp}/spool{first}"]
                    procs.append(subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True))
                    os.sched_setaffinity(procs[-1].pid, agent_cpus)
                outs = []
                for p in procs:
                    out = p.communicate(timeout=seconds + 300)[0].strip().splitlines()
                    outs.append(json.loads(out[-1]) if out else {})
                children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                agents_cpu = sum(
                    getattr(children1, f) - getattr(children0, f) for f in ("ru_utime", "ru_stime")
                )
                agents_wall = time.monotonic() - t0
                # The agents' processes exit once their monitors closed (delivered what was left).
                ended = max(o.get("stepped_until", 0) for o in outs) or time.time()
                expected = agents * round(seconds * 2)
                while _stored(db_url, run_id)[0] < expected and time.time() < ended + 30:
                    time.sleep(0.5)
                stored_s = time.time() - ended
                watch.stop.set()
                watch.join(30)
                cpu1, _ = _proc_usage(server.pid)
                stored, hosts, size = _stored(db_url, run_id)
                wall = time.monotonic() - t0

                burst_t0 = time.monotonic()
                answers = asyncio.run(_burst(int(url.rsplit(":", 1)[1]), burst, token))
                import httpx

                normal_s = float("nan")
                while time.monotonic() - burst_t0 < 120:
                    t = time.monotonic()
                    try:
                        headers = {"Authorization": f"Bearer {token}"}
                        if (
                            httpx.get(url + "/healthz", timeout=5).status_code == 200
                            and httpx.get(url + "/api/v1/jobs", headers=headers, timeout=5).status_code == 200
                        ):
                            normal_s = time.monotonic() - t
                            break
                    except httpx.HTTPError:
                        pass

                _restore(restore)
                t_term = time.monotonic()
                server.send_signal(signal.SIGTERM)
                try:
                    server.wait(30)
                    stop_s = f"{time.monotonic() - t_term:.1f}"
                except subprocess.TimeoutExpired:
                    stop_s = "over 30 (stack dump in tpuwatch-bench-pod-stuck.txt)"
                    server.send_signal(signal.SIGABRT)  # PYTHONFAULTHANDLER: every thread's stack
                    server.wait(10)
                    time.sleep(1)
                    Path("tpuwatch-bench-pod-stuck.txt").write_bytes(_log_tail(tmp, 50_000))
            log_tail = _log_tail(tmp, 200_000)  # the server's stderr (bench/common.py)

    total = lambda key: sum(o.get(key, 0) for o in outs)  # noqa: E731
    pinned = " server_and_database_pinned_to_one_cpu" if pin else ""
    print(f"{label}_agents={agents} processes={len(procs)} seconds={seconds:g}{pinned}")
    print(
        f"{label}_steps_expected={expected} stored={stored} hosts={hosts} "
        f"(checked {stored_s:.1f} s after the end)"
    )
    print(
        f"{label}_step_to_storage_p50_s={_quantile(watch.latencies, 0.5):.2f} "
        f"p99_s={_quantile(watch.latencies, 0.99):.2f}"
    )
    print(
        f"{label}_answers_429={total('throttled')} 503={total('busy')} 5xx={total('server_errors')} "
        f"rejected={total('rejected_batches')} batches={total('sent_batches')} "
        f"spool_segments_left={total('segments_left')}"
    )
    print(
        f"{label}_pace_asked_s median={_quantile(watch.pace, 0.5):.2f} max={max(watch.pace, default=0):.2f} "
        f"server_cpu_ms_per_batch={watch.cpu_per_batch:.2f}"
    )
    print(
        f"{label}_agents_cpu_cores={agents_cpu / agents_wall:.2f} of {len(agent_cpus)} cpu(s) "
        f"({agents_cpu / agents_wall / len(agent_cpus):.0%} busy: above ~90% the agents, not the server, "
        "set the delay)"
    )
    print(f"{label}_server_cpu_cores={(cpu1 - cpu0) / wall:.2f} rss_max_mb={watch.rss_max / 2**20:.0f}")
    print(
        f"{label}_read_max_s healthz={watch.worst['/healthz']:.2f} jobs={watch.worst['/api/v1/jobs']:.2f} "
        f"failed_reads={watch.bad_reads}"
    )
    print(f"{label}_burst_{burst}={answers} serves_normally_after_s={normal_s:.2f}")
    print(f"{label}_sigterm_stop_s={stop_s}")
    warnings = bytes(log_tail).decode(errors="replace").splitlines()
    print(f"{label}_server_log_lines={len(warnings)} last={warnings[-1][:160] if warnings else ''!r}")
    what = "step tables" if db == "postgresql" else "whole SQLite file"
    print(f"{label}_bytes_per_host_step={size / max(1, stored):.0f} ({what})")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agents", type=int, default=1024)
    p.add_argument("--seconds", type=float, default=120.0)
    p.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    p.add_argument("--burst", type=int, default=2000)
    p.add_argument(
        "--pin",
        action="store_true",
        help="give the server CPU 0 to itself and the agents the others, as on a slice where the server "
        "has its own VM (on a small machine the agents' processes otherwise take most of the CPU)",
    )
    args, _ = p.parse_known_args(argv)  # make bench passes every bench the same flags

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # the burst and the server need sockets
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    for db in ("sqlite", "postgresql") if args.db == "both" else (args.db,):
        run_one(db, args.agents, args.seconds, args.burst, args.pin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
