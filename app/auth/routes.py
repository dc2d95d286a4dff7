"""Logging in to the pages with a project or read-only viewer token."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse

from tpuwatch.server.auth.service import SESSION_KEY, log_in, log_out
from tpuwatch.server.auth.throttle import credential_key, retry_after
from tpuwatch.server.deps import SessionDep, SettingsDep, client_address
from tpuwatch.server.web import render

pages = APIRouter(tags=["pages"])


def _safe_next(target: str | None) -> str:
    """Only a path on this site: never an open redirect (``//host``, ``/\\host``, a scheme)."""
    if target and target.startswith("/") and not target.startswith(("//", "/\\")) and "\\" not in target:
        return target
    return "/"


@pages.get("/login")
def login_form(request: Request, next: str | None = None):
    return render(request, "auth/login.html", {"next": _safe_next(next), "error": None})


@pages.post("/login")
def login(
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    token: Annotated[str, Form(max_length=200)],
    next: Annotated[str, Form(max_length=500)] = "/",
):
    token = token.strip()
    throttle = request.app.state.auth_throttle
    client, key, now = client_address(request), credential_key(token), time.monotonic()
    wait = throttle.wait(client, key, now)
    if wait > 0:
        after = retry_after(wait)
        error = f"Too many failed sign-ins from this address: try again in {after} s."
        page = render(request, "auth/login.html", {"next": _safe_next(next), "error": error}, status_code=429)
        page.headers["Retry-After"] = after
        return page
    principal, sid = log_in(session, token, settings.session_idle_seconds, settings.session_max_seconds)
    if principal is None:
        throttle.failed(client, key, now)
        error = "That token is unknown, revoked, or may not view (ingest-only)."
        return render(request, "auth/login.html", {"next": _safe_next(next), "error": error}, status_code=401)
    request.session.clear()  # a fresh session: nothing from before the login carries over
    request.session[SESSION_KEY] = sid
    return RedirectResponse(_safe_next(next), status_code=303)


@pages.post("/logout")
def logout(request: Request, session: SessionDep):
    """End the session on the server too: a copy of the cookie saved before reads nothing after."""
    log_out(session, request.session.get(SESSION_KEY))
    request.session.clear()
    return RedirectResponse("/login", status_code=303)
