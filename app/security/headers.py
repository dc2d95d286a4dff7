"""Security headers on every response.

The pages run no inline script (Plotly figures travel in ``data-`` attributes and are drawn by
``static/js``), so the CSP can forbid inline and foreign scripts outright. Only FastAPI's own API
explorer (/docs, /redoc) loads Swagger UI from a CDN with an inline bootstrap script; it gets a
CSP of its own rather than weakening the pages'.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; frame-ancestors 'none'"
)
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "img-src 'self' data: https://fastapi.tiangolo.com; "
    "frame-ancestors 'none'"
)
DOCS_PATHS = ("/docs", "/redoc", "/docs/oauth2-redirect")


def _headers(csp: str) -> list[tuple[bytes, bytes]]:
    return [
        (b"content-security-policy", csp.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"same-origin"),
        (b"x-frame-options", b"DENY"),
        (b"cross-origin-opener-policy", b"same-origin"),
    ]


class SecurityHeadersMiddleware:
    """Adds the headers to every HTTP response, unless a route already set one of them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._pages = _headers(CSP)
        self._docs = _headers(DOCS_CSP)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = self._docs if scope.get("path") in DOCS_PATHS else self._pages

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend(h for h in extra if h[0] not in present)
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
