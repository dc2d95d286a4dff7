"""The server cannot be wedged: a flood of concurrent connections gets only 2xx, 429 or 503, every
batch answered 200 is stored exactly once, no connection is left in a transaction, and the server
answers normally right after; pool exhaustion is a 503 with Retry-After, never a 500."""

from __future__ import annotations

import asyncio
import json
import time
import uuid

import httpx
from sqlalchemy import func, select, text

from tests.conftest import make_token, start_server
from tests.helpers import run_async
from tpuwatch import wire
from tpuwatch.server.models import JobHost, Step
from tpuwatch.server.ops.admission import Gate
from tpuwatch.server.series.thinning import keeps_every_step

FLOOD = 400  # concurrent connections
STEPS = 5  # per batch


def _batch(run_id: str, host: int) -> bytes:
    now = time.time()
    steps = [[i, now - (STEPS - i) * 0.5, 0.5, 0.01] for i in range(STEPS)]
    batch = wire.batch(
        stream=uuid.uuid4().hex,
        seq=0,
        run=wire.run_info(run_id, "flood", host, {}),
        sent_at=now,
        steps=steps,
        events=[],
        metrics=[],
        dropped=0,
    )
    return json.dumps(batch).encode()


async def _raw_post(port: int, token: str, host: int, body: bytes) -> int:
    """One request on its own connection, written by hand: hundreds of these at once."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        head = (
            f"POST /api/v1/ingest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            f"X-Tpuwatch-Host: flood/{host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        writer.write(head.encode() + body)
        await writer.drain()
        status_line = await reader.readline()
        return int(status_line.split()[1])
    finally:
        writer.close()


async def _raw_get(port: int, token: str) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(
            f"GET /api/v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        await writer.drain()
        return int((await reader.readline()).split()[1])
    finally:
        writer.close()


async def _flood(port: int, token: str, run_id: str) -> list[int]:
    posts = [_raw_post(port, token, i, _batch(run_id, i)) for i in range(FLOOD)]
    gets = [_raw_get(port, token) for _ in range(FLOOD // 8)]
    return await asyncio.wait_for(asyncio.gather(*posts, *gets), 60)


def test_a_flood_of_connections_gets_only_2xx_429_503_and_the_server_serves_right_after(
    live_server, sessions
):
    token = make_token(sessions)
    port = int(live_server.url.rsplit(":", 1)[1])
    run_id = uuid.uuid4().hex
    t0 = time.monotonic()
    statuses = run_async(lambda: _flood(port, token, run_id))
    flood_s = time.monotonic() - t0
    counts = {s: statuses.count(s) for s in set(statuses)}
    assert set(counts) <= {200, 429, 503}, counts
    assert counts.get(200, 0) > 0, counts

    # Serves normally at once: liveness and a read that needs the database, each within 5 s.
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=live_server.url, timeout=5.0) as client:
        t1 = time.monotonic()
        assert client.get("/healthz").status_code == 200
        jobs = client.get("/api/v1/jobs", headers=headers)
        after_s = time.monotonic() - t1
    assert jobs.status_code == 200 and after_s < 5.0, (jobs.status_code, after_s)

    # Every batch answered 200 is counted exactly once; a 503 or 429 stored nothing. Hosts past the
    # reference ones keep raw rows only for deviating steps, so count them by their host counters,
    # and the raw rows of the reference hosts, which keep every step.
    accepted = [host for host, status in enumerate(statuses[:FLOOD]) if status == 200]
    reference = [host for host in accepted if keeps_every_step(host)]
    with sessions() as s:
        counted = s.scalar(select(func.coalesce(func.sum(JobHost.steps), 0)))
        assert counted == len(accepted) * STEPS, (counted, len(accepted), counts)
        raw = s.scalar(select(func.count()).select_from(Step).where(Step.host_index.in_(reference)))
        assert raw == len(reference) * STEPS, (raw, reference)
        if s.bind.dialect.name == "postgresql":  # no connection left holding a transaction open
            stuck = s.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND state = 'idle in transaction' AND pid <> pg_backend_pid()"
                )
            )
            assert stuck == 0
    print(
        f"flood of {len(statuses)} connections in {flood_s:.1f} s: {counts}; served after in {after_s:.2f} s"
    )


def test_pool_exhaustion_is_503_with_retry_after_not_500(settings, sessions):
    token = make_token(sessions)
    tight = settings.model_copy(update={"db_pool_size": 1, "db_max_overflow": 0, "db_pool_timeout": 0.3})
    server = start_server(tight)
    try:
        engine = server.server.config.app.state.engine
        held = engine.connect()  # the only connection: every request now waits for the pool
        try:
            with httpx.Client(base_url=server.url, timeout=10.0) as client:
                reply = client.get("/api/v1/jobs", headers={"Authorization": f"Bearer {token}"})
            assert reply.status_code == 503, reply.text
            assert reply.headers["Retry-After"] == "1"
        finally:
            held.close()
        with httpx.Client(base_url=server.url, timeout=10.0) as client:
            assert client.get("/api/v1/jobs", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    finally:
        server.stop()


def test_gate_admits_up_to_its_limit_queues_briefly_then_refuses():
    async def scenario():
        gate = Gate("ingest", limit=2, max_waiting=1, wait_s=0.2)
        assert await gate.acquire() and await gate.acquire()
        assert not await asyncio.wait_for(gate.acquire(), 1)  # waited 0.2 s, no slot came free
        waiter = asyncio.create_task(gate.acquire())
        await asyncio.sleep(0.01)
        assert not await gate.acquire()  # one waits already: refused at once
        gate.release()  # the slot passes straight to the waiter
        assert await waiter and gate.in_flight == 2
        gate.release()
        gate.release()
        assert gate.in_flight == 0 and gate.rejected == 2

    run_async(scenario)


def test_a_batch_the_full_ingest_gate_cannot_take_is_told_the_pace_with_429_not_503():
    # The server is up and storing; the hosts together send faster than it stores. The answer says
    # when to send again and how often, and is no server error.
    from tpuwatch.server.ops.admission import AdmissionMiddleware
    from tpuwatch.server.ops.pacing import HEADER as PACE_HEADER

    async def app(scope, receive, send):
        raise AssertionError("a refused batch must not reach the app")

    async def scenario() -> tuple[int, dict]:
        gate = Gate("ingest", limit=1, max_waiting=0, wait_s=0.1)
        assert await gate.acquire()  # a batch in flight holds the only slot
        middleware = AdmissionMiddleware(app, ingest=gate, reads=Gate("reads", 1, 0, 0.1))
        sent: list[dict] = []

        async def send(message):
            sent.append(message)

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        scope = {"type": "http", "method": "POST", "path": "/api/v1/ingest", "headers": []}
        await middleware(scope, receive, send)
        start = sent[0]
        return start["status"], {k.decode().lower(): v.decode() for k, v in start["headers"]}

    status, headers = run_async(scenario)
    assert status == 429, (status, headers)
    assert int(headers["retry-after"]) >= 1 and PACE_HEADER.lower() in headers, headers
