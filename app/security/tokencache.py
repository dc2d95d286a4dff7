"""Which bearer tokens are live, known on the event loop, so that a request with an unknown token is
answered from its headers alone: no body read, no gate slot, no thread of its own.

The set of live token hashes is loaded from the database in one query; a token not in it makes
the cache load again (once for every request waiting then: a flood of wrong tokens costs one query
at a time, and the failed-authentication throttle slows each address). A token is judged again,
revocation included, by the route that serves it; this only decides whether a request may go on.

>>> cache = TokenCache(max_age_s=60)
>>> cache.loaded_at is None
True
"""

from __future__ import annotations

import asyncio
import time

import anyio
from sqlalchemy import select

from tpuwatch.server.tokens.service import hash_token


class Unavailable(Exception):
    """The database could not be asked (an outage): the caller answers 503."""


class TokenCache:
    def __init__(self, max_age_s: float = 30.0) -> None:
        self.max_age_s = max_age_s
        self.loaded_at: float | None = None  # when the last load began
        self.loads = 0
        self._live: frozenset[str] = frozenset()
        self._loading: asyncio.Future | None = None
        self._limiter = anyio.CapacityLimiter(1)

    async def knows(self, sessions, token: str) -> bool:
        """True when ``token`` is live (as of a load begun after this call, if it was not known)."""
        digest = hash_token(token)
        now = time.monotonic()
        fresh = self.loaded_at is not None and now - self.loaded_at < self.max_age_s
        if fresh and digest in self._live:
            return True
        while self.loaded_at is None or self.loaded_at < now:
            if self._loading is None or self._loading.done():
                self._loading = asyncio.ensure_future(self._load(sessions))
            await asyncio.shield(self._loading)
        return digest in self._live

    async def _load(self, sessions) -> None:
        began = time.monotonic()
        try:
            live = await anyio.to_thread.run_sync(_live_hashes, sessions, limiter=self._limiter)
        except Exception as exc:
            raise Unavailable(str(exc)) from exc
        self._live, self.loaded_at = live, began
        self.loads += 1


def _live_hashes(sessions) -> frozenset[str]:
    from tpuwatch.server.models import ApiToken

    with sessions() as session:
        return frozenset(session.scalars(select(ApiToken.token_hash).where(ApiToken.revoked_at.is_(None))))
