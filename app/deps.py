"""Request dependencies as named types: a route says ``session: SessionDep`` or ``job: JobDep``.

One request is one transaction: ``get_session`` commits when the route returns and rolls back
when it raises; services only ``flush()``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, HTTPException, Path, Request
from sqlalchemy.orm import Session

from tpuwatch.server.auth.principal import Principal, visible
from tpuwatch.server.auth.service import SESSION_KEY, principal_for_session
from tpuwatch.server.auth.throttle import credential_key, retry_after
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Job
from tpuwatch.server.settings import Settings
from tpuwatch.server.tokens.service import authenticate


async def get_settings(request: Request) -> Settings:
    # async: FastAPI runs a plain ``def`` dependency in a worker thread, a thread hop per request
    # just to read an attribute.
    return request.app.state.settings


def get_session(request: Request) -> Iterator[Session]:
    with transaction(request.app.state.sessions) as session:
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings)]
# scope="function": commit before the response goes out. With the default ("request") FastAPI closes
# the session after sending, so an agent could hear 200 for a batch whose commit then failed or
# whose server died: it would drop the batch from its spool and the data would be lost.
SessionDep = Annotated[Session, Depends(get_session, scope="function")]

OPEN = Principal(project_id=None, project="*", scope="read")


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def client_address(request: Request) -> str:
    return request.client.host if request.client else "?"


def check_throttle(request: Request, token: str) -> None:
    """429 while this client is throttled for failed authentications (no database needed)."""
    wait = request.app.state.auth_throttle.wait(
        client_address(request), credential_key(token), time.monotonic()
    )
    if wait > 0:
        after = retry_after(wait)
        raise HTTPException(
            429,
            f"too many failed authentications from this address: retry in {after} s",
            headers={"Retry-After": after},
        )


def checked_principal(request: Request, session: Session, token: str) -> Principal:
    """``authenticate`` under the failed-authentication throttle (``auth/throttle.py``): 429 while
    this client is throttled, 401 for a wrong token (and one more failure counted)."""
    check_throttle(request, token)
    principal = authenticate(session, token)
    throttle = request.app.state.auth_throttle
    if principal is None:
        throttle.failed(client_address(request), credential_key(token), time.monotonic())
        raise HTTPException(401, "unknown or revoked token", headers={"WWW-Authenticate": "Bearer"})
    throttle.succeeded(client_address(request), credential_key(token))
    return principal


def _principal(request: Request, session: Session, settings: Settings) -> Principal | None:
    token = bearer_token(request)
    if token is not None:
        return checked_principal(request, session, token)
    saved = request.session.get(SESSION_KEY) if "session" in request.scope else None
    if saved:
        principal = principal_for_session(
            session, saved, settings.session_idle_seconds, settings.session_max_seconds
        )
        if principal is not None:
            return principal
    if settings.open_access:
        return OPEN
    return None


def require_reader(request: Request, session: SessionDep, settings: SettingsDep) -> Principal:
    principal = _principal(request, session, settings)
    if principal is None:
        raise HTTPException(
            401, "send 'Authorization: Bearer <token>' or log in", headers={"WWW-Authenticate": "Bearer"}
        )
    if not principal.can_read:
        raise HTTPException(403, "this token may only send data (ingest-only); use a read token to view")
    return principal


def require_writer(request: Request, session: SessionDep) -> Principal:
    token = bearer_token(request)
    if token is None:
        raise HTTPException(
            401, "send 'Authorization: Bearer <token>'", headers={"WWW-Authenticate": "Bearer"}
        )
    principal = checked_principal(request, session, token)
    if not principal.can_write:
        raise HTTPException(403, "this token is read-only; agents need a project or ingest-only token")
    return principal


class LoginRequired(Exception):
    """Raised by page dependencies; the app answers with a redirect to /login."""


def require_viewer(request: Request, session: SessionDep, settings: SettingsDep) -> Principal:
    """Pages: like ``require_reader``, but an anonymous visitor is sent to the login page."""
    principal = _principal(request, session, settings)
    if principal is None:
        raise LoginRequired()
    if not principal.can_read:
        raise HTTPException(403, "this token may only send data; log in with a read token")
    return principal


ReaderDep = Annotated[Principal, Depends(require_reader)]
WriterDep = Annotated[Principal, Depends(require_writer)]
ViewerDep = Annotated[Principal, Depends(require_viewer)]


def visible_job(session: Session, principal: Principal, job_id: int) -> Job:
    return visible(principal, session.get(Job, job_id), "job", job_id)


# Ids are 64-bit in the database: a larger number is a clear 422, not a driver overflow (500).
JobId = Annotated[int, Path(ge=1, le=2**63 - 1)]


def get_job(job_id: JobId, principal: ReaderDep, session: SessionDep) -> Job:
    return visible_job(session, principal, job_id)


def get_page_job(job_id: JobId, principal: ViewerDep, session: SessionDep) -> Job:
    return visible_job(session, principal, job_id)


JobDep = Annotated[Job, Depends(get_job)]
PageJobDep = Annotated[Job, Depends(get_page_job)]
