"""HTTP transport to the tpuwatch server: one kept-alive connection, short timeouts."""

from __future__ import annotations

import gzip
import http.client
import json
import math
import socket
import urllib.parse
from dataclasses import dataclass

INGEST_PATH = "/api/v1/ingest"
HOST_HEADER = "X-Tpuwatch-Host"
PACE_HEADER = "X-Tpuwatch-Pace"  # the interval between batches the server asks of this host
ASK_HEADER = "X-Tpuwatch-Ask"  # what the server asks of this agent (agent/asks.py)
GZIP_ABOVE = 16 * 1024  # smaller bodies are not worth the CPU
# What a kept-alive connection the server already closed looks like on the next request.
STALE = (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected)


@dataclass
class Reply:
    status: int
    retry_after: float | None = None
    message: str = ""
    pace: float | None = None
    ask: str | None = None  # what the server asks of this agent (agent/asks.py)

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class TransportError(Exception):
    """The server could not be reached or did not answer in time (worth retrying)."""


class HttpTransport:
    """Sends ingest batches with a bearer token; ``timeout`` bounds every connect and read."""

    def __init__(
        self, server: str, token: str | None, timeout: float = 10.0, host: str | None = None
    ) -> None:
        url = urllib.parse.urlsplit(server if "://" in server else f"http://{server}")
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(f"server must be an http(s) URL, got {server!r}")
        self.server = server
        self._scheme = url.scheme
        self._host = url.hostname
        self._port = url.port
        self._prefix = url.path.rstrip("/")
        self._token = token
        # Who sends, for the server's per-host rate limit: the hosts of a slice share one token.
        self._sender_id = (host or socket.gethostname())[:128].encode("ascii", "replace").decode()
        self.timeout = timeout
        self._conn: http.client.HTTPConnection | None = None

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=self.timeout)
        return self._conn

    def prepare(self, body: bytes) -> tuple[bytes, dict]:
        """The request's body and headers as they go out (no I/O): the token, who sends, and gzip
        for a body worth it. The host emulator (bench/emulator.py) sends what this returns."""
        headers = {"Content-Type": "application/json"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        headers[HOST_HEADER] = self._sender_id
        if len(body) > GZIP_ABOVE:
            body = gzip.compress(body, compresslevel=1)
            headers["Content-Encoding"] = "gzip"
        return body, headers

    @property
    def path(self) -> str:
        return self._prefix + INGEST_PATH

    def send(self, body: bytes, sending=None) -> Reply:
        """POST one batch; ``sending(bytes)`` hears the body's size as it goes out."""
        body, headers = self.prepare(body)
        if sending is not None:
            sending(len(body))
        # Servers close idle kept-alive connections (uvicorn after 5 s): a quiet job's next batch
        # finds its socket gone. One fresh connection is the cure for that, not a backoff.
        retry_stale = self._conn is not None
        while True:
            try:
                resp, data = self._post(body, headers)
                break
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                if retry_stale and isinstance(exc, STALE):
                    retry_stale = False
                    continue
                raise TransportError(f"{type(exc).__name__}: {exc}") from exc
        if resp.getheader("Connection", "").lower() == "close":
            self.close()
        return reply_of(resp.status, resp.getheader, data)

    def _post(self, body: bytes, headers: dict) -> tuple[http.client.HTTPResponse, bytes]:
        conn = self._connection()
        conn.request("POST", self.path, body=body, headers=headers)
        resp = conn.getresponse()
        return resp, resp.read()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def reply_of(status: int, header, data: bytes) -> Reply:
    """The server's answer from its status, a header lookup (``header(name)``: None when absent)
    and its body.

    >>> reply_of(503, {"Retry-After": "2", "X-Tpuwatch-Pace": "6.5"}.get, b'{"detail": "busy"}')
    Reply(status=503, retry_after=2.0, message='busy', pace=6.5, ask=None)
    """
    return Reply(
        status,
        _retry_after(header("Retry-After")),
        _detail(data),
        _retry_after(header(PACE_HEADER)),
        (header(ASK_HEADER) or None),
    )


def _retry_after(value: str | None) -> float | None:
    """Seconds from a header (Retry-After, X-Tpuwatch-Pace); None when absent or not a number."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None  # an HTTP date: rare from our server; fall back to backoff
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _detail(data: bytes) -> str:
    try:
        detail = json.loads(data).get("detail", "")
    except (ValueError, AttributeError):
        return data[:200].decode("utf-8", "replace")
    return detail if isinstance(detail, str) else json.dumps(detail)[:500]
