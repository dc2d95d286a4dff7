"""What recording compilations and reading Orbax/Grain metrics cost.

1. The JAX compile listener on the training thread: µs per compilation (its three stage calls:
   trace, lowering, backend compile), synthetic, and its share of real JAX CPU compilations.
2. One read of a local Prometheus endpoint the size of Orbax's after a save and a restore (about
   60 histograms, served by ``prometheus_client``): ms per read (fetch and parse) and the share of
   one core at the sidecar's default pace (one read every 5 s).

Prints ``name=value`` lines. ``--quick`` runs fewer repetitions.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def bench_listener(n: int) -> None:
    from tpuwatch.compiles import COMPILE, LOWER, TRACE, CompileRecorder
    from tpuwatch.monitor import Monitor

    with tempfile.TemporaryDirectory() as tmp:
        mon = Monitor("bench", spool_dir=tmp, send=False)
        rec = CompileRecorder(mon, max_events=3 * n + 10)
        rounds = []
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(n):
                rec.on_duration(TRACE, 0.01, fun_name="train_step")
                rec.on_duration(LOWER, 0.02, fun_name="jit(train_step)")
                rec.on_duration(COMPILE, 0.3, fun_name="jit(train_step)")
            rounds.append((time.perf_counter() - t0) / n)
            mon._events.clear()
        mon.close()
    print(f"compile_listener_us_per_compilation={min(rounds) * 1e6:.1f}")


def bench_real_jax(shapes: int) -> None:
    import jax
    import numpy as np

    from tpuwatch.compiles import CompileRecorder
    from tpuwatch.monitor import Monitor

    with tempfile.TemporaryDirectory() as tmp:
        mon = Monitor("bench", spool_dir=tmp, send=False)
        rec = CompileRecorder(mon)
        spent = [0.0]
        inner = rec.on_duration

        def timed(event, duration, **kw):
            t0 = time.perf_counter()
            inner(event, duration, **kw)
            spent[0] += time.perf_counter() - t0

        rec.on_duration = timed
        rec.attach()

        @jax.jit
        def train_step(x):
            return (x @ x.T).sum()

        t0 = time.perf_counter()
        for n in range(1, shapes + 1):
            train_step(np.ones((n, 64), np.float32)).block_until_ready()
        total = time.perf_counter() - t0
        rec.detach()
        mon.close()
    print(f"jax_cpu_compilations={rec.recorded}")
    print(f"jax_cpu_seconds_per_compilation={total / shapes:.4f}")
    print(f"compile_listener_share_of_compile_time_pct={100 * spent[0] / total:.4f}")


def bench_scrape(reads: int) -> None:
    from prometheus_client import CollectorRegistry, Histogram, start_http_server

    from tpuwatch.sources.local_prometheus import LocalPrometheusSource, totals, wanted_lines

    registry = CollectorRegistry()
    for i in range(60):  # Orbax exports about 60 histograms after a save and a restore
        name = "jax_orbax_write_blocking_duration_secs" if i == 0 else f"jax_orbax_write_part_{i}_secs"
        h = Histogram(name, "x", ["storage_type"], registry=registry)
        for _ in range(5):
            h.labels("other").observe(0.01 * i)
    from tests.reliability.fakes import free_port
    from tpuwatch.monitor import Monitor

    port = free_port()
    server, thread = start_http_server(port, addr="127.0.0.1", registry=registry)
    with tempfile.TemporaryDirectory() as tmp:
        mon = Monitor("bench", spool_dir=tmp, send=False)
        source = LocalPrometheusSource(mon, ports=[port])
        text = source._fetch(port)
        parse = []
        for _ in range(reads):
            t0 = time.thread_time()
            totals(wanted_lines(text))
            parse.append(time.thread_time() - t0)
        whole = []  # this thread's CPU: the endpoint's own rendering runs on its server's thread
        for _ in range(reads):
            t0 = time.thread_time()
            source.sample()
            whole.append(time.thread_time() - t0)
        mon.close()
    server.shutdown()
    server.server_close()
    cpu = statistics.median(whole)
    print(f"orbax_sized_scrape_bytes={len(text)}")
    print(f"local_prometheus_parse_cpu_ms={statistics.median(parse) * 1e3:.2f}")
    print(f"local_prometheus_read_cpu_ms={cpu * 1e3:.2f}")
    print(f"local_prometheus_core_share_at_5s_pct={100 * cpu / 5.0:.3f}")


def main() -> None:
    quick = "--quick" in sys.argv
    bench_listener(2_000 if quick else 20_000)
    bench_real_jax(10 if quick else 30)
    bench_scrape(20 if quick else 100)


if __name__ == "__main__":
    main()
