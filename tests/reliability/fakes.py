"""Local stand-ins for a misbehaving server and network: real sockets, real HTTP."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import uvicorn

from tests.conftest import LiveServer
from tpuwatch.server.main import create_app
from tpuwatch.server.settings import Settings


class ScriptedServer:
    """Answers POSTs from a script of (status, headers) and records when each request arrived.

    After the script runs out it answers 200 ``{"detail": "stored"}``. ``delay`` holds every answer
    back that many seconds, as a busy server's queue does. Example::

        with ScriptedServer([(503, {}), (429, {"Retry-After": "1"})]) as srv:
            ...  # srv.url, srv.requests -> [(monotonic time, body), ...]
    """

    def __init__(self, script: list[tuple[int, dict]], delay: float = 0.0) -> None:
        self.script = list(script)
        self.delay = delay
        self.requests: list[tuple[float, bytes]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the http.server API
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.requests.append((time.monotonic(), body))
                time.sleep(outer.delay)
                status, headers = outer.script.pop(0) if outer.script else (200, {})
                data = json.dumps({"detail": "stored" if status == 200 else f"scripted {status}"}).encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def monitor_for(srv: ScriptedServer, spool_dir, every: float):
    """A sending ``Monitor`` for ``srv`` that flushes every ``every`` s and sends twice as seldom."""
    from tpuwatch.monitor import Monitor

    return Monitor(
        "scripted",
        server=srv.url,
        token="t",
        spool_dir=spool_dir,
        send=True,
        flush_interval=every,
        send_interval=2 * every,
    )


class CuttingProxy:
    """A TCP proxy that passes requests to ``target`` but, for the first ``cuts`` connections that
    carry a request, closes the client's side as soon as the server starts answering: the server
    has received (and stores) the batch, the client never hears so."""

    def __init__(self, target_port: int, cuts: int) -> None:
        self.target_port = target_port
        self.cuts = cuts
        self.cut_done = 0
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stop:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.target_port))
        cut = self.cut_done < self.cuts
        if cut:
            self.cut_done += 1

        def pump_up():
            try:
                while data := client.recv(65536):
                    upstream.sendall(data)
            except OSError:
                pass

        threading.Thread(target=pump_up, daemon=True).start()
        try:
            while data := upstream.recv(65536):
                if cut:  # the answer exists: drop it and the connection
                    break
                client.sendall(data)
        except OSError:
            pass
        for s in (client, upstream):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self._stop = True
        self.sock.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DownPort:
    """A loopback port where no server answers yet (connections are refused) and that nothing else
    can take meanwhile: a socket bound to it, not listening. A port number merely noted as free can
    be handed to another test's server while this one is down; the agent under test then delivers
    to a stranger, whose 401s drop its batches. ``start_server_on`` takes the held socket; ``hold``
    holds the port again once that server stopped."""

    def __init__(self) -> None:
        self.sock: socket.socket | None = None
        self.port = 0
        self.hold()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def hold(self) -> None:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        self.sock, self.port = sock, sock.getsockname()[1]

    def take(self) -> socket.socket:
        """The held socket, for a server to listen on; the next server needs ``hold`` first."""
        if self.sock is None:
            self.hold()
        sock, self.sock = self.sock, None
        return sock


def start_server_on(settings: Settings, where: int | DownPort) -> LiveServer:
    """Like ``tests.conftest.start_server``, on a given port (a server coming back where it was)."""
    if isinstance(where, DownPort):
        sock, port = where.take(), where.port
    else:
        sock, port = socket.socket(), where
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
    server = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.01)
    return LiveServer(f"http://127.0.0.1:{port}", settings, thread, server)
