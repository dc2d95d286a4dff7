"""The front door: what every request shows before it costs the server anything.

Before a request takes a gate slot (ops/admission.py), a thread, or a buffer, and before FastAPI
reads its body:

1. its headers: at most ``max_header_count`` of them and ``max_header_bytes`` in all (431);
2. its bearer token, judged on the event loop from the headers alone (security/tokencache.py):
   an unknown token is a 401 at once and counts as a failed authentication (auth/throttle.py);
   a throttled address is a 429;
3. a change (POST, PUT, PATCH, DELETE) without a token needs a logged-in page session; without one a
   form is sent to the login page (303) and anything else is a 401. Only the login form, and the
   read-only triage form of an ``--open`` server, are taken from anyone;
4. then its body, whole, within ``body_deadline_seconds`` (408) and its size limit (413):
   ``max_body_bytes`` for ingest, ``max_api_body_bytes`` for the rest of the API, ``max_form_bytes``
   for page forms. The body is handed on as read; only then does the request wait for a slot.

A slow client therefore holds nothing but its socket, and only until its deadline.
"""

from __future__ import annotations

import asyncio
import logging
import time

from starlette.responses import JSONResponse, RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from tpuwatch.server.auth.service import SESSION_KEY as SESSION_LOGIN  # set once a session logged in
from tpuwatch.server.auth.throttle import credential_key, retry_after
from tpuwatch.server.ops.admission import EXEMPT_PREFIXES, INGEST_PATH
from tpuwatch.server.ops.integrity import is_damage
from tpuwatch.server.security.limits import TRIAGE_BYTES, TRIAGE_PATHS, replayer
from tpuwatch.server.security.tokencache import TokenCache, Unavailable

log = logging.getLogger("tpuwatch.frontdoor")

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
ANYONE_MAY_POST = frozenset({"/login"})
OPEN_MAY_POST = TRIAGE_PATHS  # read-only: classifies pasted text
CLOSE = {"Connection": "close"}


class FrontDoor:
    def __init__(self, app: ASGIApp, settings, tokens: TokenCache | None = None) -> None:
        self.app = app
        self.settings = settings
        self.tokens = tokens or TokenCache()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(EXEMPT_PREFIXES):
            await self.app(scope, receive, send)
            return
        s = self.settings
        headers = scope["headers"]
        if len(headers) > s.max_header_count or sum(len(n) + len(v) for n, v in headers) > s.max_header_bytes:
            why = f"at most {s.max_header_count} headers of {s.max_header_bytes} bytes in all"
            await _refuse(scope, receive, send, 431, f"request headers too large: {why}")
            return
        token = _bearer(headers)
        refused = await self._judge(scope, token)
        if refused is not None:
            await refused(scope, receive, send)
            return
        if scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        limit = self._limit(scope, token)
        declared = _content_length(headers)
        hint = ": send smaller batches" if scope["path"] == INGEST_PATH else ""
        if declared is not None and declared > limit:
            why = f"body of {declared} bytes is over the {limit}-byte limit{hint}"
            await _refuse(scope, receive, send, 413, why)
            return
        try:
            body = await asyncio.wait_for(_read(receive, limit), s.body_deadline_seconds)
        except TimeoutError:
            why = f"the body did not arrive within {s.body_deadline_seconds:g} s: send it whole, faster"
            await _refuse(scope, receive, send, 408, why)
            return
        if body is None:
            await _refuse(scope, receive, send, 413, f"body is over the {limit}-byte limit{hint}")
            return
        if body is _GONE:
            return  # the client went away: nobody hears an answer
        await self.app(scope, replayer(body, receive), send)

    async def _judge(self, scope: Scope, token: str | None):
        """None when the request may go on; else the response that refuses it."""
        app = scope["app"]
        if token is not None:
            client = scope["client"][0] if scope.get("client") else "?"
            throttle, key, now = app.state.auth_throttle, credential_key(token), time.monotonic()
            wait = throttle.wait(client, key, now)
            if wait > 0:
                after = retry_after(wait)
                return _json(
                    429,
                    f"too many failed authentications from this address: retry in {after} s",
                    {"Retry-After": after, **CLOSE},
                )
            try:
                known = await self.tokens.knows(app.state.sessions, token)
            except Unavailable as exc:
                health = getattr(app.state, "db_health", None)
                if health is not None and is_damage(exc.__cause__) and health.mark_damaged(str(exc)):
                    log.error(health.message())
                if health is not None and health.damaged:
                    return None  # the degraded answer says what happened and what to do (integrity.py)
                log.warning("cannot check tokens (database busy or unavailable): %s", exc)
                why = "cannot check the token now (the database is busy or unavailable): retry shortly"
                return _json(503, why, {"Retry-After": "1", **CLOSE})
            if not known:
                throttle.failed(client, key, now)
                return _json(401, "unknown or revoked token", {"WWW-Authenticate": "Bearer", **CLOSE})
            throttle.succeeded(client, key)
            return None
        if scope["method"] in SAFE_METHODS:
            return None
        path = scope["path"]
        if path in ANYONE_MAY_POST or (self.settings.open_access and path in OPEN_MAY_POST):
            return None
        if (scope.get("session") or {}).get(SESSION_LOGIN):
            return None
        if path.startswith("/api/"):
            why = "send 'Authorization: Bearer <token>'" + (
                " (an --open server lets anyone read, not change)" if self.settings.open_access else ""
            )
            return _json(401, why, {"WWW-Authenticate": "Bearer", **CLOSE})
        return RedirectResponse(f"/login?next={path}", status_code=303, headers=CLOSE)

    def _limit(self, scope: Scope, token: str | None) -> int:
        s = self.settings
        if scope["path"] == INGEST_PATH:
            return s.max_body_bytes
        if scope["path"] in TRIAGE_PATHS:
            return TRIAGE_BYTES  # a whole pasted log
        return s.max_api_body_bytes if token is not None else s.max_form_bytes


_GONE = b"\x00gone"


async def _read(receive: Receive, limit: int) -> bytes | None:
    """The whole body; None past ``limit``; ``_GONE`` when the client disconnected."""
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return _GONE
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _bearer(headers) -> str | None:
    for name, value in headers:
        if name == b"authorization":
            scheme, _, rest = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and rest.strip():
                return rest.strip()
            return None
    return None


def _content_length(headers) -> int | None:
    for name, value in headers:
        if name == b"content-length":
            return int(value) if value.isdigit() else None
    return None


def _json(status: int, detail: str, headers: dict) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers=headers)


async def _refuse(scope: Scope, receive: Receive, send: Send, status: int, detail: str) -> None:
    # Connection: close: the rest of an unread body must not be taken for the next request.
    await _json(status, detail, CLOSE)(scope, receive, send)
