"""A per-token rate limit: an in-process token bucket for each bearer token (or session, or client
address for anonymous requests), answering 429 with ``Retry-After`` when a bucket is empty.

The default (50 requests/s, bursts of 200) is far above what an agent sends (a few batches a
second), so only a runaway script is slowed. With ``--workers N`` each worker keeps its own buckets,
so the effective limit is N times higher: good enough to stop abuse, not an accounting tool.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

EXEMPT_PREFIXES = ("/healthz", "/static/")
MAX_BUCKETS = 100_000  # least recently used buckets beyond this are forgotten (memory stays bounded)


class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up. Example::

    >>> b = TokenBucket(rate=1.0, burst=2, now=0.0)
    >>> b.take(0.0), b.take(0.0), b.take(0.0)
    (0.0, 0.0, 1.0)
    """

    __slots__ = ("rate", "burst", "tokens", "stamp")

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = float(burst)
        self.stamp = now

    def take(self, now: float) -> float:
        """Spend one token: 0.0 when allowed, else the seconds until one is available."""
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


def client_key(scope: Scope) -> str:
    """Who is asking: the bearer token (hashed, never kept in the clear), else the client address."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            return "t:" + hashlib.sha256(value).hexdigest()[:32]
    token = (scope.get("session") or {}).get("token")
    if token:
        return "t:" + hashlib.sha256(f"Bearer {token}".encode()).hexdigest()[:32]
    client = scope.get("client")
    return "a:" + (client[0] if client else "?")


class RateLimitMiddleware:
    def __init__(self, app: ASGIApp, rate: float, burst: int) -> None:
        self.app = app
        self.rate, self.burst = rate, max(1, burst)
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(EXEMPT_PREFIXES):
            await self.app(scope, receive, send)
            return
        wait = self._take(client_key(scope), time.monotonic())
        if wait > 0:
            retry = max(1, math.ceil(wait))
            response = JSONResponse(
                {"detail": f"rate limit of {self.rate:g} requests/s exceeded: retry in {retry} s"},
                status_code=429,
                headers={"Retry-After": str(retry)},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _take(self, key: str, now: float) -> float:
        buckets = self._buckets
        bucket = buckets.get(key)
        if bucket is None:
            bucket = buckets[key] = TokenBucket(self.rate, self.burst, now)
            if len(buckets) > MAX_BUCKETS:
                buckets.popitem(last=False)
        else:
            buckets.move_to_end(key)
        return bucket.take(now)
