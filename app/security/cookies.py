"""The session cookie is ``Secure`` whenever the page was served over TLS.

The server speaks plain HTTP behind a TLS-terminating proxy or load balancer; uvicorn takes the
scheme from ``X-Forwarded-Proto`` when the proxy is trusted (``--forwarded-allow-ips``, 127.0.0.1 by
default). Starlette's session middleware decides ``Secure`` once for all requests; this wrapper adds
it per request, so one server answers both a TLS proxy and plain loopback correctly.
``TPUWATCH_SECURE_COOKIES=true`` marks it always.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class SecureCookieMiddleware:
    """Add ``; secure`` to the Set-Cookie of ``cookie`` on responses to https requests. It must sit
    outside the session middleware (added after it)."""

    def __init__(self, app: ASGIApp, cookie: str) -> None:
        self.app = app
        self.prefix = f"{cookie}=".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("scheme") != "https":
            await self.app(scope, receive, send)
            return

        async def send_secure(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = []
                for name, value in message.get("headers", []):
                    if name.lower() == b"set-cookie" and value.startswith(self.prefix):
                        if b"secure" not in value.lower().split(b";", 1)[-1]:
                            value += b"; secure"
                    headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_secure)
