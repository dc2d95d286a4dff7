"""Failed authentication is throttled per client: wrong bearer tokens and failed logins.

The review's case: 2,000 wrong bearer tokens in 9 s, and failed logins, were never slowed (the
rate limit keys on the token, so every guess got a fresh bucket).
"""

from __future__ import annotations

import re

import httpx

from tests.conftest import make_token
from tpuwatch.server.auth.throttle import AuthThrottle


def _client(url: str, ip: str, token: str | None = None) -> httpx.Client:
    # uvicorn takes the client's address from X-Forwarded-For when a proxy on 127.0.0.1 sends it.
    headers = {"X-Forwarded-For": ip}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx.Client(base_url=url, headers=headers, timeout=30, follow_redirects=False)


def test_guessing_bearer_tokens_is_throttled_for_that_client_only(live_server, sessions):
    good = make_token(sessions)
    codes = []
    with _client(live_server.url, "203.0.113.7") as c:
        for i in range(200):
            r = c.get("/api/v1/jobs", headers={"Authorization": f"Bearer tpw_guess{i:06d}"})
            codes.append(r.status_code)
            if r.status_code == 429:
                break
        assert codes[0] == 401 and codes[-1] == 429, codes
        assert len(codes) <= live_server.settings.auth_failure_burst + 1
        assert int(r.headers["retry-after"]) >= 1 and "failed" in r.json()["detail"]
        # While throttled, even the right token gets no answer from this client: guessing learns nothing.
        assert c.get("/api/v1/jobs", headers={"Authorization": f"Bearer {good}"}).status_code == 429
        assert c.get("/healthz").status_code == 200
    with _client(live_server.url, "198.51.100.9", good) as other:
        assert other.get("/api/v1/jobs").status_code == 200


def test_an_agent_repeating_one_stale_token_does_not_lock_out_its_neighbours(live_server, sessions):
    """A pod behind one NAT: one agent keeps sending a revoked token; the others go on."""
    good = make_token(sessions)
    with _client(live_server.url, "192.0.2.50", "tpw_revoked-long-ago") as stale:
        codes = [stale.get("/api/v1/jobs").status_code for _ in range(60)]
    assert codes[0] == 401 and 429 in codes
    with _client(live_server.url, "192.0.2.50", good) as neighbour:
        assert neighbour.get("/api/v1/jobs").status_code == 200


def test_failed_logins_are_throttled(live_server, sessions):
    with _client(live_server.url, "203.0.113.99") as c:
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', c.get("/login").text).group(1)
        codes = []
        for i in range(100):
            r = c.post("/login", data={"token": f"tpw_wrong{i}", "next": "/", "csrf_token": csrf})
            codes.append(r.status_code)
            if r.status_code == 429:
                break
    assert codes[0] == 401 and codes[-1] == 429, codes
    assert "Too many failed" in r.text and int(r.headers["retry-after"]) >= 1


def test_the_throttle_refills_and_forgets_the_least_recent_clients():
    t = AuthThrottle(per_minute=6.0, burst=2, max_clients=3)
    assert t.wait("a", "x", now=0.0) == 0.0
    t.failed("a", "x", now=0.0)
    t.failed("a", "y", now=0.0)
    assert t.wait("a", "z", now=0.0) > 0  # two distinct failures: the burst is spent
    assert t.wait("a", "z", now=10.0) == 0.0  # one failure forgiven every 10 s
    for client in "bcd":
        t.failed(client, "x", now=20.0)
    assert len(t) <= 3 * 2
