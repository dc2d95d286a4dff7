"""The server dies or the network cuts mid-batch: a batch is stored whole or not at all, and after
the retry exactly once. The server down for a while: the backlog arrives in order, once."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import httpx
from sqlalchemy import func, select

from tests.conftest import make_token
from tests.helpers import api, jobs, wait_until
from tests.reliability.fakes import CuttingProxy, DownPort, free_port, start_server_on
from tests.reliability.spooling import fill_spool, make_batch
from tpuwatch.monitor import Monitor
from tpuwatch.sender import Backoff, Pace, Sender
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest import keys
from tpuwatch.server.models import Job, Step
from tpuwatch.spool import Spool
from tpuwatch.transport import HttpTransport


def _counts(sessions) -> tuple[int, int]:
    with transaction(sessions) as s:
        return s.scalar(select(func.count(Step.id))), keys.stored_count(s)


def test_a_batch_whose_answer_is_cut_off_is_stored_exactly_once_after_the_retry(
    live_server, sessions, tmp_path
):
    token = make_token(sessions)
    written = fill_spool(tmp_path, batches=3, steps=200)
    proxy = CuttingProxy(int(live_server.url.rsplit(":", 1)[1]), cuts=2)
    try:
        sender = Sender(Spool(tmp_path), HttpTransport(proxy.url, token, timeout=10))
        sender.backoff = Backoff(base=0.02, cap=0.1)
        wait_until(lambda: sender.deliver(), timeout=30)
        sender.transport.close()
    finally:
        proxy.close()
    assert proxy.cut_done == 2
    # The first batch was cut twice; the third try found it stored already.
    assert sender.stats.duplicates == 1
    assert _counts(sessions) == (written, 3)


def _start_server_process(url: str, port: int, data_dir) -> subprocess.Popen:
    env = {**os.environ, "TPUWATCH_DATA_DIR": str(data_dir), "TPUWATCH_SECRET_KEY": "k"}
    cmd = [sys.executable, "-m", "tpuwatch.cli", "server", "--port", str(port), "--db", url]
    log = data_dir.parent / f"server-{port}.log"
    with open(log, "ab") as fh:  # the child keeps its own copy of the descriptor
        proc = subprocess.Popen([*cmd, "--log-level", "warning"], env=env, stdout=fh, stderr=fh)

    def up():
        assert proc.poll() is None, log.read_text()
        try:
            return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
        except httpx.TransportError:
            return False

    wait_until(up, timeout=60, interval=0.1)
    return proc


def _post_raw(port: int, token: str, body: bytes) -> socket.socket:
    """Send a whole request and return without reading the answer."""
    sock = socket.create_connection(("127.0.0.1", port))
    head = (
        f"POST /api/v1/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    sock.sendall(head + body)
    return sock


def test_a_server_killed_while_storing_a_large_batch_keeps_all_of_it_or_none(
    database_url, sessions, tmp_path
):
    token = make_token(sessions)
    port = free_port()
    big = make_batch("big", 0, "run-big", "big", 50_000, 1)
    body = json.dumps(big).encode()
    server = _start_server_process(database_url, port, tmp_path / "d")
    try:
        # How long does storing such a batch take? Kill the next one halfway through that.
        t0 = time.monotonic()
        warm = httpx.post(
            f"http://127.0.0.1:{port}/api/v1/ingest",
            content=json.dumps({**big, "stream": "warm", "run": {**big["run"], "run_id": "warm"}}),
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            timeout=60,
        )
        store_time = time.monotonic() - t0
        assert warm.status_code == 200, warm.text
        before = _counts(sessions)
        sock = _post_raw(port, token, body)
        time.sleep(store_time * 0.6)
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        sock.close()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)
    steps, batches = _counts(sessions)
    assert (steps - before[0], batches - before[1]) in ((0, 0), (50_000, 1)), (steps, batches, store_time)

    fill_spool(tmp_path / "spool", batches=0, steps=0)
    spool_file = tmp_path / "spool"
    from tpuwatch.spool import SpoolWriter

    w = SpoolWriter(spool_file, "big")
    w.append(body, 50_000)
    w.close()
    server = _start_server_process(database_url, port, tmp_path / "d")
    try:
        sender = Sender(Spool(spool_file), HttpTransport(f"http://127.0.0.1:{port}", token, timeout=60))
        wait_until(lambda: sender.deliver(), timeout=60)
        sender.transport.close()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(20)
    assert _counts(sessions) == (before[0] + 50_000, before[1] + 1)


def test_a_backlog_built_while_the_server_was_down_arrives_in_order_and_once(settings, sessions, tmp_path):
    token = make_token(sessions)
    port = DownPort()
    mon = Monitor(
        "backlog",
        server=port.url,
        token=token,
        spool_dir=tmp_path,
        flush_interval=0.02,
        send_interval=0.02,
    )
    mon._sender_thread.sender.backoff = Backoff(base=0.05, cap=0.4)
    # Keep writing many small batches while the server is away (left alone, the pace would grow
    # and fewer, larger batches would make the backlog): the order of many is what is checked.
    mon._sender_thread.sender.pace = Pace(base=0.02, cap=0.05)
    total = 0
    for _ in range(30):  # about a second of training while nothing answers
        for _ in range(100):
            with mon.step():
                pass
        total += 100
        time.sleep(0.03)
    time.sleep(0.5)  # more retries fail meanwhile
    server = start_server_on(settings, port)
    try:
        with api(server.url, token) as c:
            wait_until(lambda: (jobs(c) or [{}])[0].get("steps") == total, timeout=30)
        mon.close(timeout=5)
    finally:
        server.stop()
    with transaction(sessions) as s:
        steps = list(s.scalars(select(Step.step).order_by(Step.id)))
        job_id = s.scalar(select(Job.id).where(Job.name == "backlog"))
        seqs = keys.stored_seqs(s, job_id, mon.stream)
    assert steps == list(range(1, total + 1))  # in order, none lost, none doubled
    # A request carries the batches of one spool segment, each one's number with it: each number
    # stored once, the first batch's among them.
    assert seqs == sorted(set(seqs)) and seqs[0] == 0 and len(seqs) > 5
