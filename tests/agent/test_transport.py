"""The agent's HTTP transport against the real server on loopback."""

from __future__ import annotations

import json
import time

from tests.conftest import make_token, start_server
from tests.helpers import api, jobs
from tests.reliability.spooling import make_batch
from tpuwatch.transport import HttpTransport


def _body(seq: int) -> bytes:
    return json.dumps(make_batch("s0", seq, "run-keepalive", "keepalive", 5, seq * 5 + 1)).encode()


def test_a_connection_the_server_closed_while_idle_is_replaced_without_an_error(settings, sessions):
    # uvicorn drops a kept-alive connection after timeout_keep_alive seconds of quiet (5 by default,
    # less than the sidecar's heartbeat): the next batch must go out on a fresh connection at once.
    token = make_token(sessions)
    server = start_server(settings, timeout_keep_alive=1)
    transport = HttpTransport(server.url, token, timeout=5)
    try:
        assert transport.send(_body(0)).ok
        first = transport._conn
        time.sleep(2.0)  # the server closes the idle socket
        reply = transport.send(_body(1))
        assert reply.ok, reply
        assert transport._conn is not first
        with api(server.url, token) as c:
            (job,) = [j for j in jobs(c) if j["name"] == "keepalive"]
        assert job["steps"] == 10
    finally:
        transport.close()
        server.stop()
