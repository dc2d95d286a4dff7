"""The server's HTTP protocol with the limits a slow or greedy client meets before any request
reaches the app (``tpuwatch server`` and the tests' live servers run it):

- a request's head (request line and headers) must arrive whole within ``head_seconds`` and be at
  most ``max_header_bytes``: a client trickling or sending megabytes of headers is answered 431 (too
  large) or 408 (too slow) and disconnected, never held for ever with its buffer;
- one client address holds at most ``max_connections_per_address`` connections at once; one more is
  answered 503 with ``Retry-After`` and closed, so a single address cannot take every connection.

The body's deadline and the token check come next, in the app's front door (security/frontdoor.py).
Built on uvicorn's httptools protocol (uvicorn's default); the limits come from the settings::

    uvicorn.run(app, http=protocol_for(settings))
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

CHECK_EVERY_S = 1.0


@dataclass(frozen=True)
class Limits:
    max_header_bytes: int = 32 * 1024
    head_seconds: float = 10.0
    max_connections_per_address: int = 1024

    @classmethod
    def of(cls, settings) -> Limits:
        return cls(
            settings.max_header_bytes, settings.header_deadline_seconds, settings.max_connections_per_address
        )


def _answer(status: bytes, why: str, extra: bytes = b"") -> bytes:
    body = why.encode()
    return (
        b"HTTP/1.1 "
        + status
        + b"\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
        + extra
        + b"content-length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's protocol, with the limits above. ``limits`` is None in a worker process started by
    ``tpuwatch server --workers N``: it reads them from the settings on its first connection."""

    limits: Limits | None = None
    per_address: Counter = Counter()

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        cls = type(self)
        if cls.limits is None:
            from tpuwatch.server.settings import Settings

            cls.limits = Limits.of(Settings())
        self._address = self.client[0] if self.client else "?"
        self._head_since: float | None = time.monotonic()  # a request's head is on its way
        self._head_bytes = 0
        self._timer = None
        cls.per_address[self._address] += 1
        if 0 < cls.limits.max_connections_per_address < cls.per_address[self._address]:
            transport.write(
                _answer(
                    b"503 Service Unavailable",
                    "too many connections from this address: retry in 1 s",
                    b"retry-after: 1\r\n",
                )
            )
            transport.close()
            return
        self._timer = self.loop.call_later(CHECK_EVERY_S, self._check_head)

    def connection_lost(self, exc) -> None:
        cls = type(self)
        cls.per_address[self._address] -= 1
        if cls.per_address[self._address] <= 0:
            del cls.per_address[self._address]
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._head_since is None and (self.cycle is None or self.cycle.response_complete):
            self._head_since, self._head_bytes = time.monotonic(), 0  # the next request begins
            if self._timer is None:
                self._timer = self.loop.call_later(CHECK_EVERY_S, self._check_head)
        if self._head_since is not None:
            self._head_bytes += len(data)
        super().data_received(data)
        if self._head_since is not None and self._head_bytes > self.limits.max_header_bytes:
            self._refuse(b"431 Request Header Fields Too Large", "request headers are too large")

    def on_headers_complete(self) -> None:
        self._head_since = None
        if len(self.url) + sum(len(n) + len(v) + 4 for n, v in self.headers) > self.limits.max_header_bytes:
            self._head_since = time.monotonic()  # judged by data_received, which runs next
            self._head_bytes = self.limits.max_header_bytes + 1
            return
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if self.cycle is not None:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if self.cycle is not None:
            super().on_message_complete()

    def _check_head(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        since = self._head_since
        if since is None:
            return  # the head is in; the next one arms the timer again
        if time.monotonic() - since > self.limits.head_seconds:
            self._refuse(b"408 Request Timeout", "the request's headers did not arrive in time")
            return
        self._timer = self.loop.call_later(CHECK_EVERY_S, self._check_head)

    def _refuse(self, status: bytes, why: str) -> None:
        if not self.transport.is_closing():
            self.transport.write(_answer(status, why))
            self.transport.close()


def protocol_for(settings) -> type[GuardedProtocol]:
    """A protocol class with ``settings``' limits and its own count of connections per address."""
    return type(
        "GuardedProtocol", (GuardedProtocol,), {"limits": Limits.of(settings), "per_address": Counter()}
    )
