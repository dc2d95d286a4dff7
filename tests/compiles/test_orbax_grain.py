"""Orbax and Grain metrics from the host's local Prometheus endpoint.

Orbax exports on the CPU too (``ENABLE_ORBAX_PROMETHEUS_TELEMETRY=true``): a real save and
restore under ``tpuwatch agent run`` reach goodput's checkpoint share with no tpuwatch call in the
training code. Grain is not installed here: a local endpoint serves histograms under the names
Grain exports (``/grain/python/dataset/next_duration_ns`` and the rest, as ``tpu-info`` lists
them), through the real ``prometheus_client`` exposition."""

from __future__ import annotations

import http.server
import os
import threading

import pytest
from prometheus_client import CollectorRegistry, Histogram, start_http_server

from tests.agent.test_sidecar import sidecar
from tests.conftest import make_token
from tests.helpers import api, wait_for_job
from tests.reliability.fakes import free_port
from tpuwatch import Monitor, wire
from tpuwatch.sources.local_prometheus import LocalPrometheusSource

ORBAX_SCRIPT = """
import time
import tempfile
import jax.numpy as jnp
import orbax.checkpoint as ocp
import tpuwatch

mon = tpuwatch.init()
state = {"w": jnp.ones((256, 256)), "b": jnp.zeros((256,))}
directory = tempfile.mkdtemp()
with ocp.CheckpointManager(directory) as manager:
    for step in range(1, 7):
        with mon.step():
            state = {k: v + 1.0 for k, v in state.items()}
        if step % 3 == 0:  # two saves; nothing here tells tpuwatch about them
            t0 = time.perf_counter()
            manager.save(step, args=ocp.args.StandardSave(state))
            print("save took", time.perf_counter() - t0)
            manager.wait_until_finished()
            time.sleep(0.8)  # one read of the endpoint per save
    t0 = time.perf_counter()
    manager.restore(6, args=ocp.args.StandardRestore(state))
    print("restore took", time.perf_counter() - t0)
time.sleep(0.8)  # the sidecar reads the endpoint once more before the process (and it) goes
print("orbax done")
"""


def test_a_real_orbax_save_and_restore_reach_goodputs_checkpoint_share(live_server, sessions, tmp_path):
    token = make_token(sessions)
    port = free_port()
    env = {**os.environ, "ENABLE_ORBAX_PROMETHEUS_TELEMETRY": "true", "ORBAX_PROMETHEUS_PORT": str(port)}
    proc = sidecar(
        live_server.url, token, "orbax-save", ORBAX_SCRIPT, tmp_path, "--no-tpu-metrics",
        "--prometheus-port", str(port), "--prometheus-every", "0.3", env=env,
    )  # fmt: skip
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err.decode()[-3000:]
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "orbax-save", "succeeded", timeout=30)
        events = c.get(f"/api/v1/jobs/{job['id']}/events").json()["events"]
        goodput = c.get(f"/api/v1/jobs/{job['id']}/goodput").json()
    saves = [e["data"] for e in events if e["kind"] == "checkpoint"]
    restores = [e["data"] for e in events if e["kind"] == "restore"]
    assert sum(d["count"] for d in saves) == 2 and all(d["source"] == "orbax" for d in saves)
    assert sum(d["count"] for d in restores) == 1
    blocking = sum(d["duration"] for d in saves + restores)
    # Each is about as long as the call held the training loop (Orbax times a little less of it).
    took = [float(line.split()[-1]) for line in out.decode().splitlines() if " took " in line]
    assert len(took) == 3
    assert blocking == pytest.approx(sum(took), rel=0.5, abs=0.02)
    # The checkpoint share is those blocking times (intervals that may touch a step: within 10%).
    assert goodput["badput_s"]["checkpoint"] == pytest.approx(blocking, rel=0.1)


def _grain_endpoint():
    registry = CollectorRegistry()
    names = {
        "next": ("grain_python_dataset_next_duration_ns", "/grain/python/dataset/next_duration_ns"),
        "read": ("grain_python_dataset_source_read_time_ns", "/grain/python/dataset/source_read_time_ns"),
    }
    hist = {k: Histogram(n, doc, registry=registry) for k, (n, doc) in names.items()}
    port = free_port()
    server, thread = start_http_server(port, addr="127.0.0.1", registry=registry)
    return port, hist, server, thread


def test_grain_timings_land_on_the_input_wait_chart_and_not_among_training_metrics(
    live_server, sessions, tmp_path
):
    token = make_token(sessions)
    port, hist, server, thread = _grain_endpoint()
    mon = Monitor("grain", server=live_server.url, token=token, spool_dir=tmp_path, flush_interval=0.2)
    source = LocalPrometheusSource(mon, ports=[port])
    try:
        for step in range(1, 31):
            for _ in range(4):  # four next() calls a step: 2 ms each, then 6 ms from step 16
                hist["next"].observe(2e6 if step <= 15 else 6e6)
            hist["read"].observe(1e6)
            mon.record_step(0.05, input_wait=0.002 if step <= 15 else 0.006)
            if step % 5 == 0:
                source.sample()
        mon.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "grain", timeout=30)
        series = c.get(
            f"/api/v1/jobs/{job['id']}/metrics", params={"name": wire.MetricName.GRAIN_NEXT}
        ).json()
        charts = c.get(f"/api/v1/jobs/{job['id']}/charts", params={"group": "steps"}).json()
        training = c.get(f"/api/v1/jobs/{job['id']}/charts", params={"group": "training"}).json()
    values = [v for s in series["series"] for v in s["value"]]
    assert values == pytest.approx([0.002, 0.002, 0.002, 0.006, 0.006, 0.006])
    names = [t["name"] for t in charts["input_wait"]["data"]]
    assert "Grain next(), host 0" in names and "Grain source read, host 0" in names
    assert not [c for c in training["charts"] if "grain" in str(c).lower()]


class _Html(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<html>not metrics {{{</html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_no_endpoint_is_silent_others_metrics_record_nothing_and_a_garbled_one_is_said_once(tmp_path, capfd):
    mon = Monitor("quiet", spool_dir=tmp_path, send=False)
    closed = LocalPrometheusSource(mon, ports=[free_port()])
    assert closed.sample() == 0 and closed.problem
    registry = CollectorRegistry()
    Histogram("jax_orbax_write_gbytes", "/jax/orbax/write/gbytes", registry=registry).observe(1.0)
    port = free_port()
    server, thread = start_http_server(port, addr="127.0.0.1", registry=registry)
    try:
        unrelated = LocalPrometheusSource(mon, ports=[port])
        assert unrelated.sample() == 0 and unrelated.sample() == 0 and unrelated.reads == 2
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    html = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Html)
    threading.Thread(target=html.serve_forever, daemon=True).start()
    try:
        garbled = LocalPrometheusSource(mon, ports=[html.server_address[1]])
        assert garbled.sample() == 0 and garbled.sample() == 0
    finally:
        html.shutdown()
        html.server_close()
    mon.close()
    err = capfd.readouterr().err
    assert err.count("not Prometheus text (ValueError: Content-Type text/html)") == 1
    assert f":{closed.ports[0]}" not in err
