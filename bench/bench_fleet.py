"""A team's whole fleet against one server, with emulated hosts (bench/emulator.py: the agent's own
batching, pacing, jitter and retry rules, thousands of hosts in one process).

    python bench/bench_fleet.py [--scenario all|job|fleet|compare] [--db both|postgresql|sqlite]
                                [--workers 2] [--short] [--pin] [--hosts 4096]
                                [--job-seconds 180] [--fleet-seconds 300]
                                [--compare 64,1024] [--compare-seconds 60]

Scenarios (bench/fleet_plan.py): ``job``, one job of 4,096 hosts at 1 step/s for 3 minutes;
``fleet``, 100 jobs of 8 to 256 hosts (3,632 in all) at 1 to 4 steps/s for 5 minutes, one of them
stalling, one slowing down, one failing and ten ending; PostgreSQL with ``--workers`` server
processes (2), SQLite with one. ``compare`` runs real agents (``Monitor`` objects, as
bench/bench_pod.py does) and then the emulator with as many hosts, side by side. ``--short`` is
the form CI runs (a 256-host job and a 12-job fleet for 30 s, tests/bench/test_fleet.py).

Each run prints, prefixed by its name (``fleet_<scenario>_<db>_``): steps expected and stored and
whether each was stored exactly once, step-to-storage p50/p99 (from a step's end to the answer that
said it was stored), the 429/503/5xx answers the hosts heard, server and database CPU per thousand
host-steps, bytes stored per host-step, the worst /healthz and jobs API times, the overview page
and API times (p50/p95) while the fleet's jobs run, and for each job that stalled, slowed down or
failed how long after the fact its alert came. The machine's load average comes first and last:
the figures mean little on a machine busy with other work.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import fleet_plan  # noqa: E402
from bench.bench_pod import _pin, _pin_local_postgres, _restore  # noqa: E402
from bench.common import fresh_postgres, make_token, server_process  # noqa: E402
from bench.fleet_watch import Probe, Receiver, alert_delays, check_stored, db_bytes  # noqa: E402

PROJECT = "team"


def _plan_file(tmp: str, plan: dict) -> str:
    path = os.path.join(tmp, "plan.json")
    with open(path, "w") as f:
        json.dump(plan, f)
    return path


def run_scenario(
    scenario: str,
    db: str,
    workers: int,
    seconds: float,
    *,
    hosts: int = 4096,
    short: bool = False,
    pin: bool = False,
) -> dict:
    """One scenario on a fresh database and server; prints its figures and returns them."""
    label = f"fleet_{scenario}_{db}"
    with tempfile.TemporaryDirectory(prefix="tpuwatch-bench-fleet-") as tmp:
        dbs = fresh_postgres() if db == "postgresql" else nullcontext(f"sqlite:///{tmp}/tpuwatch.db")
        with dbs as db_url:
            from tpuwatch.server.db import upgrade

            upgrade(db_url)
            token = make_token(db_url, PROJECT)
            prefix = uuid.uuid4().hex[:6]
            if scenario == "job":
                jobs = fleet_plan.one_job(prefix, token, hosts)
            elif short:
                jobs = fleet_plan.short_fleet(prefix, token, seconds)
            else:
                jobs = fleet_plan.fleet(prefix, token, seconds)
            rx = Receiver()
            env = {
                "TPUWATCH_ALERT_WEBHOOK_URL": rx.url,
                "TPUWATCH_ALERT_WEBHOOK_ALLOW": "127.0.0.1",
                "TPUWATCH_SECRET_KEY": "bench",
                **(fleet_plan.SHORT_ENV if short else {}),
            }
            with server_process(db_url, f"{tmp}/data", env, workers=workers) as (url, server):
                everyone = os.sched_getaffinity(0)
                emulator_cpus = everyone
                restore: dict = {}
                if pin and len(everyone) > 1:
                    emulator_cpus = everyone - {min(everyone)}
                    for pid in [server.pid, *_children(server.pid)]:
                        _pin(pid, {min(everyone)})
                    if db == "postgresql":
                        restore = _pin_local_postgres({min(everyone)})
                plan = {"server": url, "seconds": seconds, "heartbeat": True, "jobs": jobs}
                probe = Probe(url, token, db_url, [server.pid, *_children(server.pid)])
                probe.start()
                bytes0 = db_bytes(db_url)
                t0 = time.time()
                emulator = subprocess.Popen(
                    [sys.executable, "-m", "bench.emulator", _plan_file(tmp, plan)],
                    cwd=ROOT,
                    stdout=subprocess.PIPE,
                    text=True,
                )
                os.sched_setaffinity(emulator.pid, emulator_cpus)
                out = emulator.communicate(timeout=seconds + 600)[0].strip().splitlines()
                result = json.loads(out[-1]) if out else {}
                ended = result.get("stepped_until") or time.time()
                stored = check_stored(db_url, result.get("jobs", []), deadline=ended + 30)
                probe.finish()
                _restore(restore)
                figures = dict(
                    label=label,
                    seconds=seconds,
                    workers=workers,
                    result=result,
                    stored=stored,
                    probe=probe.report(t0, jobs),
                    alerts=alert_delays(rx, result.get("jobs", []), short),
                    bytes=db_bytes(db_url) - bytes0,
                    server_log=_keep_log(Path(f"{tmp}/data/server.log"), label),
                    pinned=pin,
                )
            rx.close()
    _print(figures)
    return figures


def _keep_log(path: Path, label: str) -> str:
    """The server's log; kept beside the system's temporary files when it holds a traceback."""
    text = path.read_bytes().decode(errors="replace")
    if "Traceback" in text:
        kept = Path(tempfile.gettempdir()) / f"tpuwatch-{label}-server.log"
        kept.write_text(text)
        text += f"\n(the whole log: {kept})"
    return text


def _raised(lines: list[str]) -> list[str]:
    """The last line of each traceback in a log: what was raised."""
    out = []
    for i, line in enumerate(lines):
        if line.startswith("Traceback"):
            j = i + 1
            while j < len(lines) and (lines[j].startswith(" ") or not lines[j].strip()):
                j += 1
            if j < len(lines) and lines[j][:160] not in out:
                out.append(lines[j][:160])
    return out


def _children(pid: int) -> list[int]:
    """The processes a server started (uvicorn's workers)."""
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


def _row(values: list[float]) -> str:
    return " ".join(f"{x:.1f}" for x in values)


def _print(f: dict) -> None:
    label, r, s, p = f["label"], f["result"], f["stored"], f["probe"]
    host_steps = max(1, s["stored"])
    jobs = r.get("jobs", [])
    st = r.get("stats", {})
    print(
        f"{label}_jobs={len(jobs)} hosts={r.get('hosts', 0)} seconds={f['seconds']:g} "
        f"server_processes={f['workers']}{' pinned' if f['pinned'] else ''} "
        f"load_avg_1m_before={p['load'][0]:.2f}"
    )
    print(
        f"{label}_steps_expected={s['expected']} stored={s['stored']} exactly_once={s['exactly_once']} "
        f"(hosts complete {s['hosts_complete']}/{s['hosts']}, rollups {s['rollup_steps']}, raw rows of "
        f"reference hosts {s['raw_rows']} of which duplicates {s['raw_duplicates']}; checked "
        f"{s['after_s']:.1f} s after the last step)"
    )
    print(
        f"{label}_step_to_storage_p50_s={r.get('latency_p50_s', float('nan')):.2f} "
        f"p99_s={r.get('latency_p99_s', float('nan')):.2f} (over {r.get('latency_steps', 0)} steps; "
        f"p99 by 30 s of the run: {' '.join(f'{x:.1f}' for x in r.get('latency_p99_by_30s', []))}; "
        f"the emulator's own loop lag, most by 30 s: {_row(r.get('loop_lag_max_by_30s', []))})"
    )
    start = r.get("start_by_second", [])
    if start:
        print(
            f"{label}_start_by_second (second: sent stored/refused/failed, slowest answer s, commonest pace) "
            + "  ".join(f"{i}: {n} {a}/{b}/{c} {w:g}s p{pace}" for i, n, a, b, c, w, pace in start[:25])
        )
    fives = st.get("busy", 0) + st.get("server_errors", 0)
    print(
        f"{label}_answers_429={st.get('throttled', 0)} 503={st.get('busy', 0)} "
        f"other_5xx={st.get('server_errors', 0)} 5xx_total={fives} rejected={st.get('rejected_batches', 0)} "
        f"requests={st.get('requests', 0)} batches_left={r.get('batches_left', '?')} "
        f"transport_failures={r.get('transport_failures', {})}"
    )
    minutes = max(1e-9, r.get("stepped_s", 0) / 60)
    per_host = st.get("requests", 0) / max(1, r.get("hosts", 1))
    print(
        f"{label}_requests_per_host_per_min={per_host / minutes:.1f} "
        f"bytes_per_request={st.get('request_bytes', 0) / max(1, st.get('requests', 1)):.0f} "
        f"pace_asked_s median={p['pace_median']:.2f} max={p['pace_max']:.2f} (max pace/pressure by 30 s: "
        f"{' '.join(f'{a:.1f}/{b:.1f}' for a, b in p.get('pace_by_30s', []))})"
    )
    emulator_cpu = r.get("cpu_s", 0)
    print(
        f"{label}_cpu_s_per_1000_host_steps server={p['server_cpu'] / host_steps * 1000:.3f} "
        f"database={p['db_cpu'] / host_steps * 1000:.3f} emulator={emulator_cpu / host_steps * 1000:.3f} "
        f"(server {p['server_cpu']:.0f} s, database {p['db_cpu']:.0f} s, emulator {r.get('cpu_s', 0):.0f} s "
        f"of CPU over {p['wall']:.0f} s)"
    )
    print(
        f"{label}_bytes_stored_per_host_step={f['bytes'] / host_steps:.1f} "
        f"(database growth {f['bytes'] / 2**20:.0f} MiB)"
    )
    print(
        f"{label}_read_max_s healthz={p['worst']['/healthz']:.2f} jobs_api={p['worst']['/api/v1/jobs']:.2f} "
        f"failed_reads={p['bad_reads']} jobs_api_over_1s (second asked, s)={p['slow_jobs_api']}"
    )
    for name, (p50, p95, n) in p["pages"].items():
        print(f"{label}_{name}_ms p50={p50:.0f} p95={p95:.0f} (n={n}, while {p['running_min']}+ jobs ran)")
    passes = p["alert_last_pass"]
    print(
        f"{label}_alert_loop_pass_s median={statistics.median(passes) if passes else float('nan'):.2f} "
        f"worst={p['alert_worst_pass']:.2f} interval={p['alert_interval']:g} jobs_judged={p['alert_jobs']} "
        f"(samples {len(passes)})"
    )
    for line in f["alerts"]:
        print(f"{label}_alert_{line}")
    lines = f["server_log"].splitlines()
    problems = [ln for ln in lines if "ERROR" in ln or "Traceback" in ln]
    kept = lines[-1] if lines and lines[-1].startswith("(the whole log") else ""
    print(f"{label}_server_log_errors={len(problems)} raised={_raised(lines)[:4]} {kept}".rstrip())
    print(
        f"{label}_load_avg_after={p['load_after'][0]:.2f} {p['load_after'][1]:.2f} {p['load_after'][2]:.2f}"
    )
    sys.stdout.flush()


def compare(sizes: list[int], seconds: float, db: str) -> None:
    """Real agents, then the emulator with as many hosts (one job, 2 steps/s), each on a fresh
    server: their traffic and what the server stored, side by side."""
    from bench.fleet_compare import run_pair

    for n in sizes:
        run_pair(n, seconds, db)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenario", choices=["all", "job", "fleet", "compare"], default="all")
    p.add_argument("--db", choices=["both", "postgresql", "sqlite"], default="both")
    p.add_argument("--workers", type=int, default=2, help="server processes on PostgreSQL (SQLite has one)")
    p.add_argument(
        "--short", action="store_true", help="CI's form: a 256-host job and a 12-job fleet, 30 s each"
    )
    p.add_argument(
        "--pin", action="store_true", help="server and database on CPU 0, the emulator on the others"
    )
    p.add_argument("--hosts", type=int, default=4096, help="hosts of the one job")
    p.add_argument("--job-seconds", type=float, default=180.0)
    p.add_argument("--fleet-seconds", type=float, default=300.0)
    p.add_argument("--compare", default="64,1024", help="host counts for the side-by-side check")
    p.add_argument("--compare-seconds", type=float, default=60.0)
    args, _ = p.parse_known_args(argv)  # make bench passes every bench the same flags

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # a socket per emulated host
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    dbs = ["postgresql", "sqlite"] if args.db == "both" else [args.db]
    short = args.short
    hosts = 256 if short else args.hosts
    job_s = 30.0 if short else args.job_seconds
    fleet_s = 30.0 if short else args.fleet_seconds
    print(f"fleet_machine cpus={os.cpu_count()} load_avg={' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.scenario in ("all", "compare") and not short:
        compare([int(x) for x in args.compare.split(",") if x], args.compare_seconds, dbs[0])
    for db in dbs:
        workers = args.workers if db == "postgresql" else 1
        if args.scenario in ("all", "job") and (db == "postgresql" or args.scenario == "job" or short):
            run_scenario("job", db, workers, job_s, hosts=hosts, short=short, pin=args.pin)
        if args.scenario in ("all", "fleet"):
            run_scenario("fleet", db, workers, fleet_s, short=short, pin=args.pin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
