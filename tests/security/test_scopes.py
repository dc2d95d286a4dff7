"""Tokens: stored hashed, compared in constant time, and their scopes enforced."""

from __future__ import annotations

import hashlib

from sqlalchemy import select

from tests.conftest import make_token
from tests.helpers import api
from tests.security.conftest import batch
from tpuwatch.server.db import transaction
from tpuwatch.server.models import ApiToken
from tpuwatch.server.tokens import service as tokens

READ_PATHS = [
    "/api/v1/jobs",
    "/api/v1/jobs/{id}",
    "/api/v1/jobs/{id}/steps",
    "/api/v1/jobs/{id}/events",
    "/metrics",
]


def test_tokens_are_stored_only_as_their_sha256(sessions):
    token = make_token(sessions)
    with transaction(sessions) as s:
        rows = s.scalars(select(ApiToken)).all()
    assert [r.token_hash for r in rows] == [hashlib.sha256(token.encode()).hexdigest()]
    assert all(token not in (r.token_hash, r.prefix, r.name) for r in rows)
    assert len(rows[0].prefix) < len(token) // 2


def test_the_stored_hash_is_compared_in_constant_time(sessions, monkeypatch):
    token = make_token(sessions)
    calls = []
    real = tokens.hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(tokens.hmac, "compare_digest", spy)
    with transaction(sessions) as s:
        assert tokens.authenticate(s, token) is not None
    assert calls == [(tokens.hash_token(token), tokens.hash_token(token))]


def test_a_read_only_token_cannot_write(live_server, sessions):
    reader = make_token(sessions, "p", scope="read")
    with api(live_server.url, reader) as c:
        r = c.post("/api/v1/ingest", json=batch("r1", "j", "boom"))
        assert r.status_code == 403 and "read-only" in r.json()["detail"]
        assert c.get("/api/v1/jobs").json()["jobs"] == []  # nothing was stored


def test_an_ingest_only_token_cannot_read_anything(live_server, sessions):
    ingest = make_token(sessions, "p", scope="ingest")
    with api(live_server.url, ingest) as c:
        r = c.post("/api/v1/ingest", json=batch("r1", "j", "boom"))
        assert r.status_code == 200
        job_id = r.json()["job_id"]
        for path in READ_PATHS + ["/", "/jobs/{id}", "/triage"]:
            resp = c.get(path.format(id=job_id))
            assert resp.status_code == 403, (path, resp.status_code)
            assert "boom" not in resp.text


def test_a_full_token_reads_and_writes(live_server, sessions):
    full = make_token(sessions, "p", scope="full")
    with api(live_server.url, full) as c:
        job_id = c.post("/api/v1/ingest", json=batch("r1", "j", "boom")).json()["job_id"]
        for path in READ_PATHS:
            assert c.get(path.format(id=job_id)).status_code == 200, path


def test_a_revoked_or_unknown_token_is_refused(live_server, sessions):
    token = make_token(sessions)
    with transaction(sessions) as s:
        s.execute(ApiToken.__table__.update().values(revoked_at=1.0))
    for t in (token, "tpw_" + "x" * 43):
        with api(live_server.url, t) as c:
            assert c.get("/api/v1/jobs").status_code == 401
            assert c.post("/api/v1/ingest", json=batch("r", "j", "e")).status_code == 401


def test_a_read_only_token_may_acknowledge_and_silence_briefly_but_not_for_a_month(
    live_server, sessions, two_projects
):
    """Acknowledging is what an on-call person with a viewer login does; silencing for weeks is a
    decision about the project's alerting, as rerouting them is: that takes a project token."""
    a = two_projects.a
    viewer = make_token(sessions, a.name, scope="read")
    month = 30 * 86400
    with api(live_server.url, viewer) as c:
        assert c.post(f"/api/v1/alerts/{a.alert_id}/ack").status_code == 200
        assert c.post(f"/api/v1/alerts/{a.alert_id}/silence", json={"seconds": 3600}).status_code == 200
        refused = c.post(f"/api/v1/alerts/{a.alert_id}/silence", json={"seconds": month})
        assert refused.status_code == 403, refused.text
        assert "project token" in refused.json()["detail"] and "4 h" in refused.json()["detail"]
        page = c.get("/alerts").text  # the page offers a viewer only what it may do
        assert '<option value="14400">' in page and '<option value="86400">' not in page
    with api(live_server.url, a.token) as c:
        r = c.post(f"/api/v1/alerts/{a.alert_id}/silence", json={"seconds": month})
        assert r.status_code == 200 and r.json()["state"] == "silenced"
        assert '<option value="604800">' in c.get("/alerts").text
