"""A pod slice on one token, scaled to what CI can drive: 200 real agents (``Monitor`` objects with
their own senders, over 4 processes, 2 steps/s each) for 20 s against a live server. Every step is
stored exactly once, nothing answers 5xx, reads stay quick throughout; and a real `tpuwatch server`
under load stops on SIGTERM within 10 s."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
from sqlalchemy import select

from bench.common import free_port
from tests.conftest import make_token
from tests.ops.test_admission import _batch, _raw_post
from tpuwatch.server.models import Job, JobHost

ROOT = Path(__file__).resolve().parents[2]
PROCESSES, HOSTS_EACH, SECONDS, RATE = 4, 50, 20.0, 2.0


class ReadProbe(threading.Thread):
    """Times /healthz and GET /api/v1/jobs every half second while the load runs."""

    def __init__(self, url: str, token: str) -> None:
        super().__init__(daemon=True)
        self.url, self.token = url, token
        self.worst = {"/healthz": 0.0, "/api/v1/jobs": 0.0}
        self.statuses: list[int] = []
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=15.0) as client:
            while not self.stop.wait(0.5):
                for path in self.worst:
                    t0 = time.monotonic()
                    reply = client.get(path, headers={"Authorization": f"Bearer {self.token}"})
                    self.worst[path] = max(self.worst[path], time.monotonic() - t0)
                    self.statuses.append(reply.status_code)


def test_200_agents_on_one_token_store_every_step_once_without_5xx(live_server, sessions, tmp_path):
    token = make_token(sessions)
    run_id = uuid.uuid4().hex
    probe = ReadProbe(live_server.url, token)
    probe.start()
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "bench.pod_load", "--server", live_server.url, "--token", token]
            + ["--run-id", run_id, "--first-host", str(i * HOSTS_EACH), "--hosts", str(HOSTS_EACH)]
            + ["--seconds", str(SECONDS), "--rate", str(RATE), "--spool", str(tmp_path / f"spool{i}")]
            + ["--close-timeout", "40"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(PROCESSES)
    ]
    outputs = [json.loads(p.communicate(timeout=SECONDS + 120)[0].strip().splitlines()[-1]) for p in procs]
    stepping_ended = max(o["stepped_until"] for o in outputs)  # wall clock of the last step
    probe.stop.set()
    probe.join(20)

    expected = round(SECONDS * RATE)
    hosts = PROCESSES * HOSTS_EACH
    deadline = stepping_ended + 30.0
    while True:  # every step stored within 30 s of the run's end
        with sessions() as s:
            rows = s.execute(select(JobHost.host_index, JobHost.steps, JobHost.last_step)).all()
            job_steps = s.scalar(select(Job.steps).where(Job.run_id == run_id))
        complete = [r for r in rows if r.steps == expected and r.last_step == expected]
        if len(complete) == hosts or time.time() > deadline:
            break
        time.sleep(0.5)
    stored_after = time.time() - stepping_ended

    busy = sum(o["busy"] for o in outputs)
    throttled = sum(o["throttled"] for o in outputs)
    print(
        f"{hosts} agents x {SECONDS:g} s: stored {job_steps}/{hosts * expected} steps "
        f"{stored_after:.1f} s after the end; 503 {busy}, 429 {throttled}; worst read "
        f"{probe.worst['/healthz']:.2f} s /healthz, {probe.worst['/api/v1/jobs']:.2f} s /api/v1/jobs"
    )
    assert all(o["server_errors"] == 0 and o["rejected_batches"] == 0 for o in outputs), outputs
    assert all(o["segments_left"] == 0 for o in outputs), outputs  # nothing left in any spool
    # Exactly once: each host's count of stored steps is its number of steps, no more and no less.
    assert len(rows) == hosts and len(complete) == hosts, sorted(set(rows) - set(complete))[:5]
    assert job_steps == hosts * expected
    assert set(probe.statuses) == {200}, probe.statuses
    # Under 1 s on an idle machine; CI's 2 cores are shared, so the bound here is generous.
    assert max(probe.worst.values()) < 5.0, probe.worst


async def _load(port: int, token: str, stop: threading.Event) -> None:
    host = 0
    while not stop.is_set():
        batch = [_raw_post(port, token, host + i, _batch("sigterm", host + i)) for i in range(200)]
        host += 200
        await asyncio.gather(*batch, return_exceptions=True)


def test_sigterm_stops_a_real_server_under_load_within_10_s(settings, sessions, tmp_path):
    token = make_token(sessions)
    port = free_port()
    env = dict(os.environ, TPUWATCH_DATA_DIR=str(settings.data_dir), TPUWATCH_SECRET_KEY="k")
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tpuwatch.cli", "server", "--port", str(port), "--db", settings.database_url]
        + ["--log-level", "warning"],
        env=env,
        stderr=log,
    )
    log.close()  # the child has its own copy
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            started = proc.poll() is None and time.monotonic() < deadline
            assert started, (tmp_path / "server.log").read_text()[-2000:]
            time.sleep(0.2)
        stop = threading.Event()
        loader = threading.Thread(target=lambda: asyncio.run(_load(port, token, stop)), daemon=True)
        loader.start()
        time.sleep(3.0)  # hundreds of requests in flight and queued
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(30)
        stopped_s = time.monotonic() - t0
        stop.set()
        loader.join(30)
        print(f"SIGTERM under load: stopped in {stopped_s:.1f} s (exit {code})")
        assert stopped_s < 10.0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
