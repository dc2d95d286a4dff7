"""Rate limits: in-process token buckets, answering 429 with ``Retry-After`` when one is empty.

Two buckets a request:

- the client's: a bearer token *and* the agent host it names (the ``X-Tpuwatch-Host`` header every
  agent sends), else the token, else the session or client address. The default (50 requests/s,
  bursts of 200) is far above what one agent sends (about one batch a second), so only a runaway
  agent or script is slowed;
- the token's, over all its hosts: a generous ceiling (2,000 requests/s by default), so that a
  slice of thousands of hosts sharing the job's token is not throttled as one client.

With ``--workers N`` each worker keeps its own buckets, so the effective limits are N times higher:
good enough to stop abuse, not an accounting tool. Wrong tokens are slowed separately, per client
address, by the failed-authentication throttle (auth/throttle.py).
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


HOST_HEADER = b"x-tpuwatch-host"


def client_keys(scope: Scope) -> tuple[str, str | None]:
    """Who is asking, and the token it asks with (hashed, never kept in the clear): ("t:<token>/h:<host>",
    "t:<token>") for an agent, ("t:<token>", "t:<token>") for other token holders, the client
    address and None for anonymous requests."""
    auth = host = None
    for name, value in scope["headers"]:
        if name == b"authorization":
            auth = value
        elif name == HOST_HEADER:
            host = value[:128]
    if auth is None:
        token = (scope.get("session") or {}).get("token")
        auth = f"Bearer {token}".encode() if token else None
    if auth is None:
        client = scope.get("client")
        return "a:" + (client[0] if client else "?"), None
    token_key = "t:" + hashlib.sha256(auth).hexdigest()[:32]
    if host is None:
        return token_key, token_key
    return token_key + "/h:" + host.decode("latin-1"), token_key


def client_key(scope: Scope) -> str:
    return client_keys(scope)[0]


class RateLimitMiddleware:
    def __init__(
        self, app: ASGIApp, rate: float, burst: int, token_rate: float = 0.0, token_burst: int = 1
    ) -> None:
        self.app = app
        self.rate, self.burst = rate, max(1, burst)
        self.token_rate, self.token_burst = token_rate, max(1, token_burst)
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()
        self._token_buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(EXEMPT_PREFIXES):
            await self.app(scope, receive, send)
            return
        key, token_key = client_keys(scope)
        now = time.monotonic()
        wait, limit = self._take(self._buckets, key, now, self.rate, self.burst), self.rate
        if wait == 0 and token_key is not None and self.token_rate > 0:
            wait = self._take(self._token_buckets, token_key, now, self.token_rate, self.token_burst)
            limit = self.token_rate
        if wait > 0:
            retry = max(1, math.ceil(wait))
            response = JSONResponse(
                {"detail": f"rate limit of {limit:g} requests/s exceeded: retry in {retry} s"},
                status_code=429,
                headers={"Retry-After": str(retry)},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    @staticmethod
    def _take(buckets: OrderedDict, key: str, now: float, rate: float, burst: int) -> float:
        bucket = buckets.get(key)
        if bucket is None:
            bucket = buckets[key] = TokenBucket(rate, burst, now)
            if len(buckets) > MAX_BUCKETS:
                buckets.popitem(last=False)
        else:
            buckets.move_to_end(key)
        return bucket.take(now)
