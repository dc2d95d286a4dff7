"""Throttling failed authentication (wrong bearer tokens, failed logins), per client address.

Two token buckets, refilled at ``per_minute`` with ``burst`` saved up:

- one per client, charged by each *different* credential that failed from it: guessing tokens
  spends it fast; once empty, every credential from that client waits (429 with ``Retry-After``),
  the right one too, so a guess that happens to be right teaches nothing either;
- one per (client, credential), charged by every failure of that credential: an agent repeating a
  revoked token is slowed (it keeps its data spooled and retries), while the other agents behind
  the same NAT address, with their good token, go on.

A credential that has worked from a client is remembered (``succeeded``) and no longer waits for the
client's bucket: one new wrong token every few seconds from the same address (a script with an old
token beside an agent behind the same NAT) must not keep the right token out. A guess gains nothing
from this: it is remembered only once it has worked, and it may only try while the client may.

Credentials are kept as SHA-256 prefixes, never in the clear. State is in-process: with
``--workers N`` or several replicas each keeps its own, so the limits are per process, as the
request rate limit's are. Buckets of clients not seen lately are forgotten (memory stays bounded).
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict

from tpuwatch.server.security.ratelimit import TokenBucket


def credential_key(credential: str) -> str:
    return hashlib.sha256(credential.encode()).hexdigest()[:32]


class AuthThrottle:
    """Example::

    >>> t = AuthThrottle(per_minute=60, burst=1)
    >>> t.failed("10.0.0.1", "k1", now=0.0); t.wait("10.0.0.1", "k2", now=0.0) > 0
    True
    >>> t.wait("10.0.0.2", "k2", now=0.0)
    0.0
    """

    def __init__(self, per_minute: float, burst: int, max_clients: int = 50_000) -> None:
        self.rate = per_minute / 60.0
        self.burst = max(1, burst)
        self.max_clients = max_clients
        self._clients: OrderedDict[str, TokenBucket] = OrderedDict()
        self._pairs: OrderedDict[tuple[str, str], TokenBucket] = OrderedDict()
        self._good: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._lock = threading.Lock()  # routes run in a thread pool

    def __len__(self) -> int:
        return len(self._clients) + len(self._pairs)

    def wait(self, client: str, key: str, now: float) -> float:
        """Seconds ``client`` must wait before trying ``key``; 0.0 when it may try now."""
        if self.rate <= 0:
            return 0.0
        with self._lock:
            client_bucket = None if (client, key) in self._good else self._clients.get(client)
            waits = [self._peek(b, now) for b in (client_bucket, self._pairs.get((client, key)))]
        return max(waits)

    def succeeded(self, client: str, key: str) -> None:
        """``client`` presented ``key`` and it was right."""
        if self.rate <= 0:
            return
        with self._lock:
            self._good[(client, key)] = None
            self._good.move_to_end((client, key))
            while len(self._good) > self.max_clients:
                self._good.popitem(last=False)

    def failed(self, client: str, key: str, now: float) -> None:
        """``client`` presented ``key`` and it was wrong."""
        if self.rate <= 0:
            return
        with self._lock:
            pair = self._pairs.get((client, key))
            if pair is None:  # a credential not yet failed from here: one more guess
                self._bucket(self._clients, client, now).take(now)
                pair = self._bucket(self._pairs, (client, key), now)
            else:
                self._pairs.move_to_end((client, key))
            pair.take(now)

    def _bucket(self, buckets: OrderedDict, key, now: float) -> TokenBucket:
        bucket = buckets.get(key)
        if bucket is None:
            bucket = buckets[key] = TokenBucket(self.rate, self.burst, now)
            while len(buckets) > self.max_clients:
                buckets.popitem(last=False)
        else:
            buckets.move_to_end(key)
        return bucket

    def _peek(self, bucket: TokenBucket | None, now: float) -> float:
        if bucket is None:
            return 0.0
        tokens = min(bucket.burst, bucket.tokens + (now - bucket.stamp) * bucket.rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / bucket.rate


def retry_after(wait: float) -> str:
    return str(max(1, math.ceil(wait)))
