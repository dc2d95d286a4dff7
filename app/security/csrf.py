"""CSRF protection for everything a browser can post across sites.

The token is bound to the session (a random value kept in the signed session cookie) and must come
back with every unsafe request, as the ``csrf_token`` form field (``templates/_csrf.html`` renders
it) or an ``X-CSRF-Token`` header. Two kinds of request are exempt because a foreign page cannot
forge them: requests with an ``Authorization`` header (browsers never add one on their own), and
JSON bodies (a cross-site JSON post needs a CORS preflight, which this server never grants).
The login form is covered too, so no page can log a visitor into someone else's project.
"""

from __future__ import annotations

import hmac
import secrets

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from tpuwatch.server.security.limits import MAX_FORM_BYTES, TRIAGE_BYTES, TRIAGE_PATHS, replayer

SESSION_KEY = "csrf"
FIELD = "csrf_token"
HEADER = "x-csrf-token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})


def csrf_token(request: Request) -> str | None:
    """The session's CSRF token, made on first use; None when the request has no session."""
    if "session" not in request.scope:
        return None
    token = request.session.get(SESSION_KEY)
    if not token:
        token = secrets.token_urlsafe(32)
        request.session[SESSION_KEY] = token
    return token


def _json_body(content_type: str) -> bool:
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


class CSRFMiddleware:
    """Refuses unsafe form posts whose token does not match the session's, with a 403."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if "authorization" in headers or _json_body(headers.get("content-type", "")):
            await self.app(scope, receive, send)
            return
        expected = (scope.get("session") or {}).get(SESSION_KEY)
        limit = TRIAGE_BYTES if scope["path"] in TRIAGE_PATHS else MAX_FORM_BYTES  # a pasted log
        body, too_big = await _read_body(receive, limit)
        if too_big:
            await JSONResponse({"detail": "form is too large"}, status_code=413)(scope, receive, send)
            return
        replay = replayer(body, receive)
        sent = headers.get(HEADER)
        if sent is None and body:
            form = await Request(scope, replay).form()
            value = form.get(FIELD)
            sent = value if isinstance(value, str) else None
            await form.close()
            replay = replayer(body, receive)
        if not expected or not sent or not hmac.compare_digest(sent.encode(), str(expected).encode()):
            reason = (
                "CSRF token missing or stale: reload the page and submit again"
                if expected
                else "no session: open the page first (API clients send 'Authorization: Bearer <token>')"
            )
            await JSONResponse({"detail": reason}, status_code=403)(scope, receive, send)
            return
        await self.app(scope, replay, send)


async def _read_body(receive: Receive, limit: int) -> tuple[bytes, bool]:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return b"", True
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks), False
