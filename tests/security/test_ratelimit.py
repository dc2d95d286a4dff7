"""Per-token rate limit: a token bucket per token, 429 with Retry-After, others unaffected."""

from __future__ import annotations

import time

import pytest

from tests.conftest import make_token, start_server
from tests.helpers import api
from tpuwatch.server.security.ratelimit import TokenBucket


def test_bucket_allows_a_burst_then_refills_at_the_rate():
    b = TokenBucket(rate=2.0, burst=3, now=100.0)
    assert [b.take(100.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert b.take(100.0) == pytest.approx(0.5)
    assert b.take(100.5) == 0.0  # half a second at 2/s gave one back
    assert b.take(100.5) > 0
    assert b.take(1000.0) == 0.0 and b.tokens == pytest.approx(2.0)  # never more than the burst


def test_a_token_over_its_limit_gets_429_with_retry_after_and_others_do_not(settings, sessions):
    limited = settings.model_copy(update={"rate_limit_per_second": 1.0, "rate_limit_burst": 3})
    server = start_server(limited)
    try:
        hog, other = make_token(sessions, "p1"), make_token(sessions, "p2")
        with api(server.url, hog) as c, api(server.url, other) as o:
            codes = [c.get("/api/v1/jobs").status_code for _ in range(3)]
            assert codes == [200, 200, 200]
            refused = c.get("/api/v1/jobs")
            assert refused.status_code == 429
            assert int(refused.headers["retry-after"]) >= 1
            assert "rate limit" in refused.json()["detail"]
            assert o.get("/api/v1/jobs").status_code == 200
            assert c.get("/healthz").status_code == 200  # liveness probes are never limited
            time.sleep(float(refused.headers["retry-after"]))
            assert c.get("/api/v1/jobs").status_code == 200
    finally:
        server.stop()


def test_the_default_limit_lets_an_agent_send_hundreds_of_batches_in_a_burst(live_server, sessions):
    assert live_server.settings.rate_limit_burst >= 200 and live_server.settings.rate_limit_per_second >= 50
    with api(live_server.url, make_token(sessions)) as c:
        codes = {c.get("/api/v1/jobs").status_code for _ in range(150)}
    assert codes == {200}


def test_each_host_of_a_slice_has_its_own_limit_under_a_ceiling_for_the_token(settings, sessions):
    """One token, many hosts: a runaway host is slowed alone; the token's ceiling bounds them all."""
    limited = settings.model_copy(
        update={
            "rate_limit_per_second": 0.01,
            "rate_limit_burst": 2,
            "rate_limit_token_per_second": 0.01,
            "rate_limit_token_burst": 5,
        }
    )
    server = start_server(limited)
    try:
        with api(server.url, make_token(sessions)) as c:

            def get(host: str) -> int:
                return c.get("/api/v1/jobs", headers={"X-Tpuwatch-Host": host}).status_code

            assert [get("host-0") for _ in range(3)] == [200, 200, 429]  # the runaway host alone
            assert [get("host-1"), get("host-2"), get("host-3")] == [200, 200, 200]  # others go on
            refused = c.get("/api/v1/jobs", headers={"X-Tpuwatch-Host": "host-4"})
            assert refused.status_code == 429  # the sixth request of the token: over its ceiling
            assert "0.01 requests/s" in refused.json()["detail"]
    finally:
        server.stop()
