"""The emulated hosts' HTTP: the agent's ``HttpTransport`` (its headers, gzip and the reply it
reads) over one kept-alive asyncio connection per host instead of http.client, parsed by httptools
(the parser uvicorn uses). Like the agent's, a connection the server closed while idle is opened
again once, and every request has the agent's 5 s timeout."""

from __future__ import annotations

import asyncio

import httptools

from tpuwatch.transport import HttpTransport, TransportError, reply_of

TIMEOUT_S = 5.0  # Monitor's transport timeout
FAILURES: dict[str, int] = {}  # transport failures by kind (timeouts, resets), over every host


class _Response:
    __slots__ = ("headers", "body", "done")

    def __init__(self) -> None:
        self.headers: dict[str, str] = {}
        self.body: list[bytes] = []
        self.done = False

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_body(self, body: bytes) -> None:
        self.body.append(body)

    def on_message_complete(self) -> None:
        self.done = True


class _Stale(ConnectionError):
    """The server had closed the kept-alive connection (http.client's RemoteDisconnected)."""


class Connection:
    """One kept-alive HTTP/1.1 connection to the server, like the agent's http.client one."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    @property
    def open(self) -> bool:
        return self.writer is not None

    async def post(self, path: str, headers: dict, body: bytes) -> tuple[int, dict, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        head = [f"POST {path} HTTP/1.1", f"Host: {self.host}:{self.port}", "Accept-Encoding: identity"]
        head += [f"{k}: {v}" for k, v in headers.items()]
        head.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
        await self.writer.drain()
        response = _Response()
        parser = httptools.HttpResponseParser(response)
        first = True
        while not response.done:
            data = await self.reader.read(65536)
            if not data:
                raise _Stale("the server closed the connection") if first else ConnectionResetError()
            first = False
            parser.feed_data(data)
        # As http.client decides (HTTPResponse._check_close): an HTTP/1.1 answer keeps the
        # connection unless it says "Connection: close". httptools' should_keep_alive() is False
        # once the message is complete, and closed every connection after its first answer: each
        # emulated request was a new connection, which real agents never made.
        if "close" in response.headers.get("connection", "").lower() or parser.get_http_version() != "1.1":
            self.close()
        return parser.get_status_code(), response.headers, b"".join(response.body)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


class Transport:
    """The agent's ``HttpTransport`` (its headers, gzip and reply) over an asyncio connection."""

    def __init__(self, server: str, token: str, sender_id: str) -> None:
        self.http = HttpTransport(server, token, timeout=TIMEOUT_S, host=sender_id)
        self.conn = Connection(self.http._host, self.http._port or 80)

    async def send(self, body: bytes, sending) -> object:
        body, headers = self.http.prepare(body)
        sending(len(body))
        retry_stale = self.conn.open
        while True:
            try:
                async with asyncio.timeout(TIMEOUT_S):
                    status, got, data = await self.conn.post(self.http.path, headers, body)
                break
            except (OSError, TimeoutError, httptools.HttpParserError) as exc:
                FAILURES[type(exc).__name__] = FAILURES.get(type(exc).__name__, 0) + 1
                self.conn.close()
                if retry_stale and isinstance(exc, (_Stale, ConnectionResetError, BrokenPipeError)):
                    retry_stale = False
                    continue
                raise TransportError(f"{type(exc).__name__}: {exc}") from exc
        return reply_of(status, lambda name: got.get(name.lower()), data)
