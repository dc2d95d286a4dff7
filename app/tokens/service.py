"""Projects and their tokens. A token is shown once; only its SHA-256 is kept.

Tokens carry 256 bits of randomness, so a plain SHA-256 (no salt, no slow hash) is enough and
lets the server find a token by its hash; the final comparison is constant-time anyway.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from tpuwatch.server.auth.principal import Principal
from tpuwatch.server.errors import NotFound
from tpuwatch.server.models import ApiToken, Project, WebSession

PREFIX = "tpw_"
SCOPES = ("full", "read", "ingest")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def get_or_create_project(session: Session, name: str) -> Project:
    project = session.scalar(select(Project).where(Project.name == name))
    if project is None:
        project = Project(name=name, created_at=time.time())
        session.add(project)
        session.flush()
    return project


def create_token(session: Session, project: str, scope: str = "full", name: str = "") -> str:
    """Create a token for ``project`` (made if new); returns the token text, shown only now."""
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}")
    proj = get_or_create_project(session, project)
    token = PREFIX + secrets.token_urlsafe(32)
    session.add(
        ApiToken(
            project_id=proj.id,
            token_hash=hash_token(token),
            prefix=token[:10],
            scope=scope,
            name=name,
            created_at=time.time(),
        )
    )
    session.flush()
    return token


def authenticate(session: Session, token: str) -> Principal | None:
    """The principal a token stands for, or None for an unknown or revoked token."""
    digest = hash_token(token)
    row = session.execute(
        select(
            ApiToken.id, ApiToken.token_hash, ApiToken.scope, ApiToken.revoked_at, Project.id, Project.name
        )
        .join(Project, Project.id == ApiToken.project_id)
        .where(ApiToken.token_hash == digest)
    ).first()
    if row is None or row[3] is not None or not hmac.compare_digest(row[1], digest):
        return None
    return Principal(project_id=row[4], project=row[5], scope=row[2], token_id=row[0])


def list_tokens(session: Session, project: str | None = None) -> list[dict]:
    """Every token (never its text): id, project, scope, prefix, name, times, live page sessions."""
    live = select(WebSession.token_id, func.count().label("n")).group_by(WebSession.token_id).subquery()
    q = (
        select(ApiToken, Project.name, func.coalesce(live.c.n, 0))
        .join(Project, Project.id == ApiToken.project_id)
        .outerjoin(live, live.c.token_id == ApiToken.id)
        .order_by(Project.name, ApiToken.id)
    )
    if project:
        q = q.where(Project.name == project)
    return [
        dict(
            id=t.id,
            project=name,
            scope=t.scope,
            prefix=t.prefix,
            name=t.name,
            created_at=t.created_at,
            revoked_at=t.revoked_at,
            sessions=n,
        )
        for t, name, n in session.execute(q)
    ]


def revoke_token(session: Session, token_id: int, now: float | None = None) -> int:
    """Revoke a token and end every page session made with it; returns the sessions ended."""
    token = session.get(ApiToken, token_id)
    if token is None:
        raise NotFound(f"no token {token_id}")
    if token.revoked_at is None:
        token.revoked_at = time.time() if now is None else now
    ended = session.execute(
        delete(WebSession).where(WebSession.token_id == token_id).returning(WebSession.id)
    )
    n = len(ended.all())
    session.flush()
    return n
