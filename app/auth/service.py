"""Page sessions, kept on the server.

Logging in with a token makes a row in ``web_sessions`` and gives the browser a random session id
(in the signed session cookie); only the id's SHA-256 is stored. A request reads as the session's
token while the row exists, the token is not revoked, the session was used within the idle limit and
is younger than the absolute limit. Logging out deletes the row, so a copy of the cookie saved
before it reads nothing after; revoking the token deletes every row made with it. The cookie never
holds the token or its hash: a leaked cookie cannot be turned into a token for the API.
"""

from __future__ import annotations

import secrets
import time

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from tpuwatch.server.auth.principal import Principal
from tpuwatch.server.models import ApiToken, Project, WebSession
from tpuwatch.server.tokens.service import authenticate, hash_token

SESSION_KEY = "sid"
RENEW_AFTER_S = 60.0  # a session in use writes its last use at most once a minute


def log_in(
    session: Session, token: str, idle_s: float, max_s: float, now: float | None = None
) -> tuple[Principal | None, str | None]:
    """The principal of ``token`` when it may view pages, and a new session id for the cookie."""
    principal = authenticate(session, token)
    if principal is None or not principal.can_read:
        return None, None
    now = time.time() if now is None else now
    # Sessions that ran out are dead already; their rows go now rather than pile up.
    ran_out = or_(WebSession.last_seen_at < now - idle_s, WebSession.created_at < now - max_s)
    session.execute(delete(WebSession).where(ran_out))
    sid = secrets.token_urlsafe(32)
    session.add(WebSession(id=hash_token(sid), token_id=principal.token_id, created_at=now, last_seen_at=now))
    session.flush()
    return principal, sid


def principal_for_session(
    session: Session, sid: object, idle_s: float, max_s: float, now: float | None = None
) -> Principal | None:
    """The principal a session id stands for; None once it was logged out, ran out, or its token
    was revoked."""
    if not isinstance(sid, str) or not 16 <= len(sid) <= 128:
        return None
    digest = hash_token(sid)
    row = session.execute(
        select(
            WebSession.created_at,
            WebSession.last_seen_at,
            ApiToken.id,
            ApiToken.scope,
            ApiToken.revoked_at,
            Project.id,
            Project.name,
        )
        .join(ApiToken, ApiToken.id == WebSession.token_id)
        .join(Project, Project.id == ApiToken.project_id)
        .where(WebSession.id == digest)
    ).first()
    now = time.time() if now is None else now
    if row is None or row.revoked_at is not None:
        return None
    if now - row.last_seen_at > idle_s or now - row.created_at > max_s:
        return None
    if now - row.last_seen_at > RENEW_AFTER_S:
        session.execute(update(WebSession).where(WebSession.id == digest).values(last_seen_at=now))
    return Principal(project_id=row[5], project=row[6], scope=row[3], token_id=row[2])


def log_out(session: Session, sid: object) -> None:
    """End the session for good: a copy of its cookie reads nothing from now on."""
    if isinstance(sid, str):
        session.execute(delete(WebSession).where(WebSession.id == hash_token(sid)))
