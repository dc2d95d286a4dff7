"""Page sessions. The signed session cookie is readable by whoever holds it (signed, not
encrypted), so it carries the token's SHA-256, never the token: a leaked cookie cannot be turned
into a token for the API, and revoking the token ends every session made with it."""

from __future__ import annotations

import hmac

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import ApiToken, Project
from app.tokens.service import Principal, authenticate, hash_token

SESSION_KEY = "token_sha256"


def log_in(session: Session, token: str) -> tuple[Principal | None, str | None]:
    """The principal of ``token`` when it may view pages, and the digest to keep in the session."""
    principal = authenticate(session, token)
    if principal is None or not principal.can_read:
        return None, None
    return principal, hash_token(token)


def principal_for_digest(session: Session, digest: str) -> Principal | None:
    """The principal a session's token digest stands for; None once the token is revoked."""
    if not isinstance(digest, str) or len(digest) != 64:
        return None
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
