"""Logging in to the pages with a project or read-only viewer token."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse

from app.auth.service import SESSION_KEY, log_in
from app.deps import SessionDep
from app.web import render

router = APIRouter(tags=["pages"])


def _safe_next(target: str | None) -> str:
    """Only a path on this site: never an open redirect (``//host``, ``/\\host``, a scheme)."""
    if target and target.startswith("/") and not target.startswith(("//", "/\\")) and "\\" not in target:
        return target
    return "/"


@router.get("/login")
def login_form(request: Request, next: str | None = None):
    return render(request, "auth/login.html", {"next": _safe_next(next), "error": None})


@router.post("/login")
def login(
    request: Request,
    session: SessionDep,
    token: Annotated[str, Form(max_length=200)],
    next: Annotated[str, Form(max_length=500)] = "/",
):
    principal, digest = log_in(session, token.strip())
    if principal is None:
        error = "That token is unknown, revoked, or may not view (ingest-only)."
        return render(request, "auth/login.html", {"next": _safe_next(next), "error": error}, status_code=401)
    request.session.clear()  # a fresh session: nothing from before the login carries over
    request.session[SESSION_KEY] = digest
    return RedirectResponse(_safe_next(next), status_code=303)


@router.post("/logout")
def logout(request: Request):
    request.session.clear()
    return RedirectResponse("/login", status_code=303)
