"""Projects and their tokens. A token is shown once; only its SHA-256 is kept.

Tokens carry 256 bits of randomness, so a plain SHA-256 (no salt, no slow hash) is enough and
lets the server find a token by its hash; the final comparison is constant-time anyway.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import ApiToken, Project

PREFIX = "tpw_"
SCOPES = ("full", "read", "ingest")


@dataclass(frozen=True)
class Principal:
    """Who is asking: a project (None for the open demo, which sees every project) and a scope."""

    project_id: int | None
    project: str
    scope: str = "full"
    token_id: int | None = None

    @property
    def can_read(self) -> bool:
        return self.scope in ("full", "read")

    @property
    def can_write(self) -> bool:
        return self.scope in ("full", "ingest")


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
