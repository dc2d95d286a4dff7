"""What reading libtpu's runtime metrics costs a host, with every metric on.

The fake runtime metrics service (tests/agent/tpu_fake.py: every metric tpu-info knows, per-chip
gauges, per-chip HLO timing, eight megascale distributions over two buffer sizes, one unknown
metric; 4 chips) runs in a subprocess, so this process's CPU time is the agent's alone: the real
``TpuMetricsSource`` reading every listed metric, packing the round, and the Monitor's writer
spooling it as it would be sent.

Prints ``name=value`` lines:
- ``device_round_cpu_ms``: CPU per sampling round (median of blocks), gRPC client included;
- ``device_round_wall_ms``: wall time per round (the source's thread, not training's);
- ``device_share_of_core_pct``: that CPU over the default 5 s interval, as a share of one core;
- ``device_bytes_per_min``: batch bytes a host sends per minute for its rounds (JSON as spooled
  and sent; uncompressed: batches this small go out without gzip) and ``device_gzip_bytes_per_min``;
- ``device_core_state_ms``: one read of the cores' state (GetTpuRuntimeStatus with HLO locations).

And the server's side, on SQLite and PostgreSQL (``--skip-postgres`` leaves it out): the rounds of
a 64-host job stored through the ingest service (``device_store_ms_per_round``, a batch per host
with one round each, as agents send them) and the device view of the job page and API over them
(``device_view_ms``).

``--quick`` runs fewer rounds.
"""

from __future__ import annotations

import gzip
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SERVE = """
import sys, time
from tests.agent.tpu_fake import MetricService
with MetricService(chips=4, cores_per_chip=1) as fake:
    fake.place("all-reduce.3")
    print(fake.port, flush=True)
    sys.stdin.read()
"""
EVERY_S = 5.0


def main() -> None:
    quick = "--quick" in sys.argv
    rounds, blocks = (20, 3) if quick else (50, 5)
    server = subprocess.Popen(
        [sys.executable, "-c", SERVE], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        port = int(server.stdout.readline())
        packed = run(f"127.0.0.1:{port}", rounds, blocks)
    finally:
        server.stdin.close()
        server.wait(10)
    with tempfile.TemporaryDirectory() as tmp:
        store(f"sqlite:///{tmp}/bench.db", "sqlite", packed, 5 if quick else 20)
    if "--skip-postgres" not in sys.argv:
        from bench.common import fresh_postgres

        with fresh_postgres() as url:
            store(url, "postgresql", packed, 5 if quick else 20)


def store(url: str, label: str, packed: list, rounds: int, hosts: int = 64) -> None:
    from bench.common import make_token
    from tpuwatch.server.db import make_engine, make_sessionmaker, transaction, upgrade
    from tpuwatch.server.device.service import device_view
    from tpuwatch.server.ingest.schemas import Batch
    from tpuwatch.server.ingest.service import ingest
    from tpuwatch.server.models import Job
    from tpuwatch.server.tokens.service import authenticate

    upgrade(url)
    token = make_token(url)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    with transaction(sessions) as s:
        who = authenticate(s, token)
    t0 = time.time() - rounds * EVERY_S
    spent = {}
    for with_round in (False, True, False, True):  # the round's share: the same batches without it
        run_id = f"bench-device-{with_round}-{time.perf_counter_ns()}"
        took = 0.0
        for i in range(rounds):
            with transaction(sessions) as s:
                c0 = time.perf_counter()
                for h in range(hosts):
                    ts = t0 + i * EVERY_S
                    events = [[ts, "device", "", packed[3]]] if with_round else []
                    run = {"run_id": run_id, "job": run_id, "host": h}
                    steps = [[i * 5 + k, ts - 4 + k, 1.0, 0.01] for k in range(5)]
                    batch = Batch(stream=f"{run_id}-{h}", seq=i, run=run, steps=steps, events=events)
                    job_id = ingest(s, who, batch).job_id
                took += time.perf_counter() - c0
        per_batch = took / (rounds * hosts)
        spent[with_round] = min(spent.get(with_round, per_batch), per_batch)
    views = []
    with transaction(sessions) as s:
        job = s.get(Job, job_id)
        for _ in range(5):
            c0 = time.perf_counter()
            view = device_view(s, job)
            views.append(time.perf_counter() - c0)
    engine.dispose()
    extra = (spent[True] - spent[False]) * 1000
    print(f"device_store_ms_per_round_{label}={extra:.2f} (a batch of 5 steps: {spent[False] * 1000:.2f} ms)")
    series = len(view.series)
    print(f"device_view_ms_{label}={statistics.median(views) * 1000:.1f} ({hosts} hosts, {series} series)")


def run(address: str, rounds: int, blocks: int) -> list:
    from tpuwatch.monitor import Monitor
    from tpuwatch.sources.tpu_metrics import TpuMetricsSource

    with tempfile.TemporaryDirectory() as tmp:
        mon = Monitor("bench-device", spool_dir=tmp, send=False, flush_interval=3600)
        source = TpuMetricsSource(mon, address, timeout=2.0)
        values = source.sample()  # connect and list once, as a run does at its start
        source.sample()  # a round that describes the interval since the last one
        event = next(e for e in reversed(mon._events) if e[1] == "device")
        packed = json.dumps(list(event), separators=(",", ":")).encode()
        mon.flush()
        spooled = _spool_bytes(Path(tmp))
        cpu, wall = [], []
        for _ in range(blocks):
            c0, w0 = time.process_time(), time.perf_counter()
            for _ in range(rounds):
                source.sample()
                mon.flush()  # the writer's share: encode and spool what the round recorded
            cpu.append((time.process_time() - c0) / rounds)
            wall.append((time.perf_counter() - w0) / rounds)
        per_round = (_spool_bytes(Path(tmp)) - spooled) / (rounds * blocks)
        c0 = time.perf_counter()
        cores = source.read_cores("bench")
        core_ms = (time.perf_counter() - c0) * 1000
        mon.close()
    cpu_ms = statistics.median(cpu) * 1000
    per_min = 60.0 / EVERY_S
    print(f"device_metrics_listed={len(source._supported)}")
    print(f"device_values_per_round={values}")
    print(f"device_round_cpu_ms={cpu_ms:.2f}")
    print(f"device_round_wall_ms={statistics.median(wall) * 1000:.2f}")
    print(f"device_share_of_core_pct={cpu_ms / (EVERY_S * 1000) * 100:.3f}")
    print(f"device_round_event_bytes={len(packed)}")
    print(f"device_bytes_per_min={per_round * per_min:.0f}")
    print(f"device_gzip_bytes_per_min={len(gzip.compress(packed, 6)) * per_min:.0f}")
    print(f"device_core_state_ms={core_ms:.2f} ({cores} cores)")
    return list(event)


def _spool_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


if __name__ == "__main__":
    main()
