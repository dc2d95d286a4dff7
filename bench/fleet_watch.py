"""What bench/bench_fleet.py watches while the emulated fleet runs, and checks after it: the read
probes, the CPU of the server and of its database sessions, the alerts a webhook receives, and
whether every step was stored exactly once."""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bench.fleet_plan import FAIL, SHORT_ENV, SLOW, STALL

TICK = os.sysconf("SC_CLK_TCK")
STALL_FLOOR_S = 120.0  # the server's default (TPUWATCH_STALL_FLOOR_SECONDS)
FIRING = re.compile(r"^\[FIRING\] ([^/\n]+)/(\S+) is (.+)$", re.M)


def cpu_seconds(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICK


def _by_window(samples: list[tuple[float, float, float]], t0: float, window: float) -> list[tuple]:
    """The largest pace and pressure answered in each ``window`` seconds from ``t0``."""
    out: dict[int, tuple[float, float]] = {}
    for t, pace, pressure in samples:
        k = max(0, int((t - t0) / window))
        was = out.get(k, (0.0, 0.0))
        out[k] = (max(was[0], pace), max(was[1], pressure))
    return [out.get(k, (float("nan"), float("nan"))) for k in range(max(out, default=-1) + 1)]


def _quantile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, math.ceil(q * len(values)) - 1)]


class Probe(threading.Thread):
    """Every half second /healthz and GET /api/v1/jobs (the worst times, the pace asked); every two
    seconds the overview page and its API; every two seconds the CPU of the server's processes and
    of the database's sessions (PostgreSQL backends of this database: the machine's other
    databases are not ours to count)."""

    def __init__(self, url: str, token: str, db_url: str, server_pids: list[int]) -> None:
        super().__init__(daemon=True)
        self.url, self.token, self.db_url = url, token, db_url
        self.server_pids = server_pids
        self.server_cpu0 = {p: cpu_seconds(p) or 0.0 for p in server_pids}
        self.worst = {"/healthz": 0.0, "/api/v1/jobs": 0.0}
        self.bad_reads = 0
        self.pace_at: list[tuple[float, float, float]] = []  # (when, pace, pressure) as answered
        self.alert_passes: list[dict] = []  # the leader's /healthz "alerts" (app/alerts/loop.py)
        self.pages: dict[str, list[tuple[float, float]]] = {
            "overview_page": [],
            "overview_api": [],
            "jobs_api": [],
        }
        self.backends: dict[int, list[float]] = {}  # pid -> [first reading, last reading]
        self.load0 = os.getloadavg()
        self.t0 = time.time()
        self._done = threading.Event()
        self.server_cpu = self.db_cpu = 0.0
        self.wall = 0.0

    def run(self) -> None:
        import httpx

        engine = None
        if self.db_url.startswith("postgresql"):
            from tpuwatch.server.db import make_engine

            engine = make_engine(self.db_url)
        headers = {"Authorization": f"Bearer {self.token}"}
        rounds = 0
        with httpx.Client(base_url=self.url, timeout=30.0, headers=headers) as client:
            while not self._done.wait(0.5):
                rounds += 1
                for path in self.worst:
                    ms = self._get(client, path)
                    if ms is not None:
                        self.worst[path] = max(self.worst[path], ms / 1000)
                        if path == "/api/v1/jobs":
                            self.pages["jobs_api"].append((time.time(), ms))
                if rounds % 4 == 0:
                    self._each_process()
                    for name, path in (("overview_page", "/"), ("overview_api", "/api/v1/overview")):
                        ms = self._get(client, path)
                        if ms is not None:
                            self.pages[name].append((time.time(), ms))
                    if engine is not None:
                        self._backends(engine)
        if engine is not None:
            self._backends(engine)
            engine.dispose()

    def _each_process(self) -> None:
        """/healthz on a new connection (any of the server's processes answers): the pace each
        asks of hosts, and the alert loop's passes where it leads."""
        import httpx

        try:
            body = httpx.get(self.url + "/healthz", timeout=10.0).json()
        except (httpx.HTTPError, ValueError):
            return
        self._paced(body.get("ingest") or {})
        if "alerts" in body:
            self.alert_passes.append(body["alerts"])

    def _paced(self, ingest: dict) -> None:
        if "pace_seconds" in ingest:
            self.pace_at.append((time.time(), ingest["pace_seconds"], ingest.get("pressure", 1.0)))

    def _get(self, client, path: str) -> float | None:
        import httpx

        t = time.perf_counter()
        try:
            reply = client.get(path)
        except httpx.HTTPError:
            self.bad_reads += 1
            return None
        ms = (time.perf_counter() - t) * 1000
        if not reply.is_success:
            self.bad_reads += 1
        elif path == "/healthz":
            self._paced(reply.json().get("ingest") or {})
        return ms

    def _backends(self, engine) -> None:
        from sqlalchemy import text

        try:
            with engine.connect() as conn:
                pids = conn.execute(
                    text(
                        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                        "AND pid <> pg_backend_pid()"
                    )
                ).scalars()
                for pid in pids:
                    now = cpu_seconds(pid)
                    if now is not None:
                        # A backend first seen after the start began during the run: all of it counts.
                        first = self.backends.get(pid, [now if time.time() - self.t0 < 3 else 0.0])[0]
                        self.backends[pid] = [first, now]
        except Exception:  # a probe that cannot look misses a reading, never the run
            pass

    def finish(self) -> None:
        self._done.set()
        self.join(60)
        self.wall = time.time() - self.t0
        self.server_cpu = sum((cpu_seconds(p) or c0) - c0 for p, c0 in self.server_cpu0.items())
        self.db_cpu = sum(last - first for first, last in self.backends.values())

    def report(self, t0: float, jobs: list[dict]) -> dict:
        """The figures; page times are kept only while every job of the plan was running."""

        def running(t: float) -> int:
            at = t - t0
            return sum(1 for j in jobs if j.get("start", 0) <= at and (j.get("end") is None or at < j["end"]))

        most = max((running(t) for ts in self.pages.values() for t, _ in ts), default=0)
        pages = {}
        for name, samples in self.pages.items():
            during = [ms for t, ms in samples if running(t) >= most] or [ms for _, ms in samples]
            pages[name] = (_quantile(during, 0.5), _quantile(during, 0.95), len(during))
        api = self.pages["jobs_api"]
        slow = [(round(t - ms / 1000 - t0), round(ms / 1000, 2)) for t, ms in api if ms > 1000]
        return dict(
            worst=self.worst,
            slow_jobs_api=slow,  # (second of the run it was asked, seconds): the reads over 1 s
            bad_reads=self.bad_reads,
            pace_median=statistics.median(paces) if (paces := [p for _, p, _ in self.pace_at]) else 0.0,
            pace_max=max(paces, default=0.0),
            pace_by_30s=_by_window(self.pace_at, t0, 30.0),
            alert_last_pass=[a["last_pass_s"] for a in self.alert_passes],
            alert_worst_pass=max((a["worst_pass_s"] for a in self.alert_passes), default=float("nan")),
            alert_jobs=max((a["jobs"] for a in self.alert_passes), default=0),
            alert_interval=self.alert_passes[-1]["interval_s"] if self.alert_passes else float("nan"),
            pages=pages,
            running_min=most,
            server_cpu=self.server_cpu,
            db_cpu=self.db_cpu,
            wall=self.wall,
            load=self.load0,
            load_after=os.getloadavg(),
        )


class Receiver:
    """A webhook receiver on loopback: when each ``[FIRING]`` message arrived, for which job."""

    def __init__(self) -> None:
        self.firings: list[tuple[float, str, str]] = []  # (arrival, job, what)
        self.count = 0  # every message, resolves and repeats included
        me = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                me.count += 1
                for _, job, what in FIRING.findall(body.get("text", "")):
                    me.firings.append((time.time(), job, what))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    @property
    def arrivals(self) -> dict[str, list[float]]:
        """When each job's firing messages came."""
        out: dict[str, list[float]] = {}
        for t, job, _ in self.firings:
            out.setdefault(job, []).append(t)
        return out

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def alert_delays(rx: Receiver, jobs: list[dict], short: bool) -> list[str]:
    """For the stalled, slowed and failed jobs: how long after the fact the first alert came (and
    what it said); for every other job: that none came."""
    floor = float(SHORT_ENV["TPUWATCH_STALL_FLOOR_SECONDS"]) if short else STALL_FLOOR_S
    first: dict[str, tuple[float, str]] = {}
    for t, job, what in rx.firings:
        first.setdefault(job, (t, what))
    lines, healthy = [], []
    for j in jobs:
        name, happened = j["name"], j.get("happened", {})
        for kind, key, limit in ((STALL, "stall", floor + 15), (SLOW, "slow", 300.0), (FAIL, "end", 10.0)):
            if f"-{kind}-" in name:
                if name in first and key in happened:
                    delay = first[name][0] - happened[key]
                    what = first[name][1]
                    extra = f" after the stall threshold of {floor:g} s" if kind == STALL else ""
                    lines.append(
                        f"{key}_delay_s={delay:.1f} said={what!r} limit_s={limit:g} "
                        f"({delay - floor if kind == STALL else delay:.1f} s{extra})"
                    )
                else:
                    lines.append(f"{key}_delay_s=none (no alert for {name}; happened={sorted(happened)})")
                break
        else:
            if name in first:
                healthy.append(f"{name}: {first[name][1]}")
    lines.append(f"healthy_jobs_alerted={len(healthy)} {healthy[:3] if healthy else ''}".rstrip())
    return lines


def check_stored(db_url: str, jobs: list[dict], deadline: float) -> dict:
    """Wait (until ``deadline``) for every host of every job to have its steps stored, then check
    that each was stored exactly once: each host's count and last step, each job's count, the
    rollups' counts, and the raw rows of the reference hosts (which keep every step)."""
    from sqlalchemy import text

    from tpuwatch.server.db import make_engine
    from tpuwatch.server.series.thinning import FULL_STEP_HOSTS

    want = {j["run_id"]: (j["hosts"], j["steps_per_host"]) for j in jobs}
    engine = make_engine(db_url)
    try:
        while True:
            with engine.connect() as conn:
                ids = dict(conn.execute(text("SELECT run_id, id FROM jobs")).all())
                rows = conn.execute(text("SELECT job_id, steps, last_step FROM job_hosts")).all()
            by_id = {ids[r]: w for r, w in want.items() if r in ids}
            complete = sum(
                1
                for job_id, steps, last in rows
                if job_id in by_id and steps == by_id[job_id][1] == (last or 0)
            )
            hosts = sum(h for h, _ in want.values())
            if complete == hosts or time.time() > deadline:
                break
            time.sleep(0.5)
        after = time.time() - (deadline - 30)
        with engine.connect() as conn:
            job_steps = dict(conn.execute(text("SELECT id, steps FROM jobs")).all())
            rollups = dict(
                conn.execute(
                    text("SELECT job_id, sum(n) FROM step_rollups WHERE level = 0 GROUP BY job_id")
                ).all()
            )
            raw = {
                job_id: (n, distinct)
                for job_id, n, distinct in conn.execute(
                    text(
                        "SELECT job_id, count(*), count(DISTINCT host_index * 100000000 + step) FROM steps "
                        f"WHERE host_index < {FULL_STEP_HOSTS} GROUP BY job_id"
                    )
                ).all()
            }
            stored = sum(steps for job_id, steps, _ in rows if job_id in by_id)
    finally:
        engine.dispose()
    expected = sum(h * n for h, n in want.values())
    rollup_steps = sum(int(rollups.get(i, 0)) for i in by_id)
    raw_rows = sum(raw.get(i, (0, 0))[0] for i in by_id)
    raw_dup = sum(raw.get(i, (0, 0))[0] - raw.get(i, (0, 0))[1] for i in by_id)
    raw_want = sum(min(h, FULL_STEP_HOSTS) * n for h, n in want.values())
    once = (
        complete == hosts
        and len(by_id) == len(want)
        and all(job_steps.get(i) == h * n for i, (h, n) in by_id.items())
        and rollup_steps == expected
        and raw_rows == raw_want
        and raw_dup == 0
    )
    return dict(
        expected=expected,
        stored=stored,
        hosts=hosts,
        hosts_complete=complete,
        rollup_steps=rollup_steps,
        raw_rows=raw_rows,
        raw_duplicates=raw_dup,
        exactly_once=once,
        after_s=after,
    )


def db_bytes(db_url: str) -> int:
    """The database's size on disk (PostgreSQL's, or the SQLite file with its WAL)."""
    if db_url.startswith("sqlite"):
        path = db_url.split("///", 1)[1]
        return sum(os.path.getsize(p) for p in (path, path + "-wal") if os.path.exists(p))
    from sqlalchemy import text

    from tpuwatch.server.db import make_engine

    engine = make_engine(db_url)
    with engine.connect() as conn:
        size = conn.scalar(text("SELECT pg_database_size(current_database())"))
    engine.dispose()
    return int(size)
