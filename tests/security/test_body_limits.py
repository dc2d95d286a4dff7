"""Bodies over the limit are refused before they are read whole: a huge Content-Length is refused
on the headers alone, and a chunked stream is cut off once it passes the limit."""

from __future__ import annotations

import select
import socket
import time

from tests.conftest import make_token, start_server

LIMIT = 256 * 1024


def _connect(url: str) -> socket.socket:
    host, port = url.rsplit("/", 1)[-1].split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    return sock


def _read_status(sock: socket.socket) -> int:
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return int(data.split(b" ", 2)[1])


def _headers(token: str, extra: str) -> bytes:
    return (
        f"POST /api/v1/ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: application/json\r\n{extra}\r\n"
    ).encode()


def test_a_huge_content_length_is_refused_from_the_headers_alone(settings, sessions):
    server = start_server(settings.model_copy(update={"max_body_bytes": LIMIT}))
    try:
        token = make_token(sessions)
        with _connect(server.url) as sock:
            sock.sendall(_headers(token, f"Content-Length: {10 * 1024**3}\r\n") + b'{"stream":')
            t0 = time.monotonic()
            status = _read_status(sock)
            assert status == 413
            assert time.monotonic() - t0 < 5  # it did not wait for 10 GB
    finally:
        server.stop()


def test_a_chunked_stream_is_refused_soon_after_it_passes_the_limit(settings, sessions):
    server = start_server(settings.model_copy(update={"max_body_bytes": LIMIT}))
    try:
        token = make_token(sessions)
        chunk = b"x" * 16384
        frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
        sent = 0
        with _connect(server.url) as sock:
            sock.sendall(_headers(token, "Transfer-Encoding: chunked\r\n"))
            status = None
            while sent < 64 * 1024 * 1024:  # the stream would go on for 64 MB
                readable, _, _ = select.select([sock], [], [], 0)
                if readable:
                    status = _read_status(sock)
                    break
                try:
                    sock.sendall(frame)
                except (BrokenPipeError, ConnectionResetError):
                    status = _read_status(sock)
                    break
                sent += len(chunk)
                time.sleep(0.001)
        assert status == 413
        assert sent < 8 * LIMIT, f"sent {sent} bytes before the refusal"
    finally:
        server.stop()
