"""A PostgreSQL outage is a 503 with ``Retry-After`` on the API and ingest, ``/healthz`` says
degraded, and the database's address or file goes to the server's log only.

The review's case: PostgreSQL stopped for 12 s: the API and ingest answered 500 and ``/healthz``
said ok; a damaged SQLite file's path was shown by ``/healthz`` to anyone. Here a TCP relay stands
between the server and a real PostgreSQL, and is cut and restored.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from tests.conftest import make_token, start_server
from tests.helpers import api, wait_until
from tpuwatch.server.ops.integrity import DatabaseHealth
from tpuwatch.server.settings import Settings


class Relay:
    """Forwards loopback connections to PostgreSQL; ``cut()`` drops them all and refuses new ones."""

    def __init__(self, target: tuple[str, int] | str) -> None:
        self.target = target  # (host, port), or a Unix socket's path (the embedded PostgreSQL's)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.up = True
        self.socks: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.up:
                client.close()
                continue
            if isinstance(self.target, str):
                upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                upstream.connect(self.target)
            else:
                upstream = socket.create_connection(self.target)
            self.socks += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        a.close()  # each socket is read by one pipe, which closes it

    def cut(self) -> None:
        self.up = False
        for s in self.socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.socks = []

    def restore(self) -> None:
        self.up = True

    def close(self) -> None:
        self.cut()
        self.listener.close()


def _upstream(url) -> tuple[str, int] | str:
    """Where PostgreSQL listens: TCP, or (the embedded server without TPUWATCH_TEST_DATABASE_URL)
    the Unix socket in the folder its URL names as ``?host=``."""
    folder = url.query.get("host")
    if isinstance(folder, str) and folder.startswith("/"):
        sockets = [p for p in Path(folder).glob(".s.PGSQL.*") if not p.name.endswith(".lock")]
        assert sockets, f"no PostgreSQL socket in {folder}"
        return str(sockets[0])
    return (url.host or "127.0.0.1", url.port or 5432)


def _batch(seq: int) -> dict:
    now = time.time()
    return {"stream": "s", "seq": seq, "run": {"run_id": "r", "job": "j"}, "steps": [[seq + 1, now, 0.1, 0]]}


def test_an_outage_is_a_503_with_retry_after_and_healthz_degraded(pg_database, tmp_path, caplog):
    url = make_url(pg_database)
    relay = Relay(_upstream(url))
    through = (
        url.difference_update_query(["host"])
        .set(host="127.0.0.1", port=relay.port)
        .render_as_string(hide_password=False)
    )
    settings = Settings(
        db=through, data_dir=tmp_path / "d", secret_key="k", alerts_enabled=False, db_pool_timeout=2.0
    )
    server = start_server(settings)
    try:
        from tpuwatch.server.db import make_engine, make_sessionmaker

        engine = make_engine(pg_database)
        token = make_token(make_sessionmaker(engine))
        engine.dispose()
        with api(server.url, token) as c:
            assert c.post("/api/v1/ingest", json=_batch(0)).status_code == 200
            assert c.get("/healthz").json()["status"] == "ok"
            relay.cut()
            for attempt in (lambda: c.post("/api/v1/ingest", json=_batch(1)), lambda: c.get("/api/v1/jobs")):
                r = attempt()
                assert r.status_code == 503, r.text
                assert r.headers["Retry-After"]
            health = wait_until(lambda: (h := c.get("/healthz")).status_code == 503 and h, timeout=10)
            assert health.json()["status"] == "degraded"
            assert str(relay.port) not in health.text and "postgres" not in health.text
            relay.restore()
            wait_until(lambda: c.post("/api/v1/ingest", json=_batch(2)).status_code == 200, timeout=15)
            wait_until(lambda: c.get("/healthz").status_code == 200, timeout=10)
    finally:
        server.stop()
        relay.close()


@pytest.mark.parametrize("url", ["sqlite:////srv/secret-place/tpuwatch.db"])
def test_a_damaged_files_path_is_not_shown_by_healthz(url):
    health = DatabaseHealth(url)
    health.mark_damaged("PRAGMA quick_check: page 3 is never used")
    assert "secret-place" not in str(health.report())
    assert "secret-place" in health.message()  # the log line says where it is
