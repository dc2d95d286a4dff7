"""Local stand-ins that speak the real protocols of Google's services, for the agent's sources.

- ``MetricService``: a gRPC server implementing libtpu's ``RuntimeMetricService`` from the proto
  that tpu-info ships, on loopback with local credentials (as libtpu serves it): tpu_fake.py.
- ``MetadataServer``: the GCE metadata server's HTTP interface (``Metadata-Flavor: Google``).
- ``TpuApi``: the Cloud TPU v2 REST API's ``GET /v2/projects/*/locations/*/nodes/*``.

Each has a ``mode``: ``ok``, ``slow`` (answers after ``delay`` seconds) or ``garbage`` (answers
with something that is not the protocol).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.agent.tpu_fake import MetricService

__all__ = ["MetadataServer", "MetricService", "TpuApi", "closed_port"]


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class _HttpFake:
    """A loopback HTTP server in a thread; subclasses answer in ``handle(handler)``."""

    def __init__(self, mode: str = "ok", delay: float = 3.0) -> None:
        self.mode, self.delay = mode, delay
        self.requests: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                fake.requests.append(self.path)
                fake.handle(self)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @staticmethod
    def send(handler, status: int, body: bytes, headers: dict | None = None) -> None:
        try:
            handler.send_response(status)
            for k, v in (headers or {}).items():
                handler.send_header(k, v)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting: that is what a slow test wants

    def handle(self, handler) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


def tpu_env(node: str, worker: int, zone: str = "us-central2-b", project: str = "proj-1") -> str:
    """The ``tpu-env`` attribute as a TPU VM has it (YAML-shaped ``KEY: 'value'`` lines)."""
    return "\n".join(
        [
            "ACCELERATOR_TYPE: 'v4-16'",
            f"CONSUMER_PROJECT_ID: '{project}'",
            f"NODE_ID: '{node}'",
            "PREEMPTIBLE: 'true'",
            "TOPOLOGY: '2x2x2'",
            "TYPE: 'V4'",
            f"WORKER_ID: '{worker}'",
            f"ZONE: '{zone}'",
        ]
    )


class MetadataServer(_HttpFake):
    """``/computeMetadata/v1/<path>`` for one TPU VM worker."""

    def __init__(self, node: str = "my-v4", worker: int = 0, mode: str = "ok", delay: float = 3.0) -> None:
        super().__init__(mode, delay)
        self.values = {
            "instance/attributes/tpu-env": tpu_env(node, worker),
            "instance/attributes/accelerator-type": "v4-16",
            "instance/attributes/agent-worker-number": str(worker),
            "instance/name": f"t1v-n-3f2a9c1e-w-{worker}",
            "instance/zone": "projects/123456789/zones/us-central2-b",
            "project/project-id": "proj-1",
        }

    @property
    def host(self) -> str:
        """What ``GCE_METADATA_HOST`` takes: host:port, no scheme."""
        return f"127.0.0.1:{self.port}"

    def handle(self, handler) -> None:
        if self.mode == "slow":
            time.sleep(self.delay)
        if self.mode == "garbage":
            return self.send(handler, 200, b"<html>captive portal</html>", {"Content-Type": "text/html"})
        if handler.headers.get("Metadata-Flavor") != "Google":
            return self.send(handler, 403, b"Missing Metadata-Flavor:Google header.")
        path = handler.path.split("?", 1)[0].removeprefix("/computeMetadata/v1/")
        value = self.values.get(path)
        flavor = {"Metadata-Flavor": "Google", "Content-Type": "application/text"}
        if value is None:
            return self.send(handler, 404, b"not found", flavor)
        return self.send(handler, 200, value.encode(), flavor)


class TpuApi(_HttpFake):
    """The Cloud TPU v2 REST API for one node whose state, health and symptoms a test sets."""

    def __init__(self, node: str, mode: str = "ok", delay: float = 3.0) -> None:
        super().__init__(mode, delay)
        self.node = node  # projects/p/locations/z/nodes/n
        self.state = "READY"
        self.health = "HEALTHY"
        self.symptoms: list[dict] = []

    def handle(self, handler) -> None:
        if self.mode == "slow":
            time.sleep(self.delay)
        if self.mode == "garbage":
            return self.send(handler, 200, b"\x00{not json", {"Content-Type": "application/json"})
        path = handler.path.split("?", 1)[0]
        if path != f"/v2/{self.node}":
            body = {"error": {"code": 404, "message": f"node {path} not found", "status": "NOT_FOUND"}}
            return self.send(handler, 404, json.dumps(body).encode(), {"Content-Type": "application/json"})
        node = {
            "name": self.node,
            "acceleratorType": "v4-16",
            "state": self.state,
            "health": self.health,
            "symptoms": self.symptoms,
            "runtimeVersion": "tpu-ubuntu2204-base",
        }
        self.send(handler, 200, json.dumps(node).encode(), {"Content-Type": "application/json"})
