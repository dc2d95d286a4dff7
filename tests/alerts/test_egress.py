"""Webhooks go to public addresses only, unless the operator allows a receiver by name.

The review's case: a project token added webhooks to ``http://127.0.0.1:...``, ``http://[::1]/...``
and ``http://169.254.169.254/computeMetadata/v1/``, and the server then POSTed alert JSON there; the
sender followed redirects, so a public URL could bounce it inward. The receivers here listen on
loopback, which the policy refuses by default: the tests that need one allow it explicitly with
``TPUWATCH_ALERT_WEBHOOK_ALLOW``.
"""

from __future__ import annotations

import time

import pytest
from sqlalchemy import select

from tests.alerts.conftest import fast
from tests.alerts.receivers import WebhookReceiver
from tests.conftest import make_token, start_server
from tests.helpers import api, wait_until
from tpuwatch.server.alerts.egress import EgressPolicy, EgressRefused
from tpuwatch.server.db import transaction
from tpuwatch.server.models import AlertChannel, AlertDelivery, Project

REFUSED = [
    ("http://127.0.0.1:{port}/hook", "loopback"),
    ("http://[::1]:{port}/hook", "loopback"),
    ("http://localhost:{port}/hook", "loopback"),  # a host name that resolves to loopback
    ("http://0x7f.1:{port}/hook", "loopback"),  # the same address, spelled otherwise
    ("http://[::ffff:127.0.0.1]:{port}/hook", "loopback"),
    ("http://0.0.0.0:{port}/hook", "unspecified"),
    ("http://169.254.169.254/computeMetadata/v1/", "link-local"),
    ("http://[fe80::1]/hook", "link-local"),
    ("http://10.1.2.3/hook", "private"),
    ("http://172.16.5.4/hook", "private"),
    ("http://192.168.1.1/hook", "private"),
    ("http://[fd00:ec2::254]/latest/meta-data/", "private"),
    ("http://100.64.0.1/hook", "non-public"),
]


@pytest.mark.parametrize("url, reason", REFUSED)
def test_the_policy_judges_the_resolved_address_not_the_text(url, reason):
    with pytest.raises(EgressRefused, match=reason):
        EgressPolicy().vet(url.format(port=8080))


def test_public_addresses_pass_and_the_allow_list_opens_named_receivers():
    assert EgressPolicy().vet("https://8.8.8.8/hook").addresses == ("8.8.8.8",)
    assert EgressPolicy().vet("http://[2001:4860:4860::8888]/").port == 80
    allowed = EgressPolicy.parse("127.0.0.1, 10.0.0.0/8, localhost")
    assert allowed.vet("http://10.9.9.9:81/x").addresses == ("10.9.9.9",)
    assert allowed.vet("http://localhost:5/x").host == "localhost"
    with pytest.raises(EgressRefused, match="link-local"):
        allowed.vet("http://169.254.169.254/computeMetadata/v1/")


def test_a_project_token_cannot_add_a_webhook_to_an_internal_address(settings, sessions):
    receiver = WebhookReceiver()
    server = start_server(fast(settings, alerts_enabled=False))
    try:
        token = make_token(sessions)
        port = receiver.url.rsplit(":", 1)[1].split("/")[0]
        with api(server.url, token) as c:
            for url, reason in REFUSED:
                r = c.post(
                    "/api/v1/alerts/channels", json={"kind": "webhook", "target": url.format(port=port)}
                )
                assert r.status_code == 422, (url, r.status_code, r.text)
                assert reason in r.json()["detail"] and "TPUWATCH_ALERT_WEBHOOK_ALLOW" in r.json()["detail"]
            form = c.post(
                "/alerts/channels",
                data={"kind": "webhook", "target": "http://169.254.169.254/computeMetadata/v1/"},
                follow_redirects=False,
            )
            assert form.status_code == 422
            assert c.get("/api/v1/alerts/channels").json()["channels"] == []
    finally:
        server.stop()
        receiver.close()


def _plant_channels(sessions, project: str, urls: list[str]) -> None:
    """Channels stored by a server from before the policy (or straight into the database)."""
    with transaction(sessions) as s:
        project_id = s.scalar(select(Project.id).where(Project.name == project))
        for url in urls:
            s.add(AlertChannel(project_id=project_id, kind="webhook", target=url, created_at=time.time()))


def _fail_a_job(c) -> None:
    now = time.time()
    batch = {
        "stream": "s",
        "seq": 0,
        "run": {"run_id": "r", "job": "doomed"},
        "steps": [[1, now - 5, 0.1, 0.0]],
        "events": [[now - 1, "exit", "", {"code": 1}]],
    }
    assert c.post("/api/v1/ingest", json=batch).status_code == 200


def _settled(sessions, n: int) -> list[AlertDelivery]:
    def done():
        with transaction(sessions) as s:
            rows = s.scalars(select(AlertDelivery).order_by(AlertDelivery.id)).all()
        return rows if len(rows) >= n and all(r.status in ("sent", "failed") for r in rows) else None

    return wait_until(done, timeout=30)


def test_the_server_never_posts_alerts_to_an_internal_address_it_already_has_stored(settings, sessions):
    v4, v6 = WebhookReceiver("127.0.0.1"), WebhookReceiver("::1")
    server = start_server(fast(settings))
    try:
        token = make_token(sessions)
        port = v4.url.rsplit(":", 1)[1].split("/")[0]
        _plant_channels(
            sessions, "team-a", [v4.url, v6.url, f"http://localhost:{port}/hook", "http://169.254.169.254/x"]
        )
        with api(server.url, token) as c:
            _fail_a_job(c)
            deliveries = _settled(sessions, 4)
    finally:
        server.stop()
        v4.close()
        v6.close()
    assert v4.requests == 0 and v6.requests == 0
    assert [d.status for d in deliveries] == ["failed"] * 4
    assert all("refused" in d.last_error and d.attempts == 1 for d in deliveries)


def test_an_allow_listed_internal_receiver_gets_the_alerts(settings, sessions, webhook):
    server = start_server(fast(settings, alert_webhook_allow="127.0.0.1"))
    try:
        token = make_token(sessions)
        with api(server.url, token) as c:
            r = c.post("/api/v1/alerts/channels", json={"kind": "webhook", "target": webhook.url})
            assert r.status_code == 201, r.text
            _fail_a_job(c)
            wait_until(webhook.firing, timeout=30)
    finally:
        server.stop()
    assert "doomed" in webhook.firing()[0]


def test_a_redirect_from_an_allowed_receiver_to_a_refused_one_is_not_followed(settings, sessions):
    bouncer, inner, also_allowed = WebhookReceiver(), WebhookReceiver("::1"), WebhookReceiver()
    bouncer_303 = WebhookReceiver()
    server = start_server(fast(settings, alert_webhook_allow="127.0.0.1"))
    try:
        token = make_token(sessions)
        bouncer.redirect = (307, inner.url)  # to IPv6 loopback: not on the allow list
        bouncer_303.redirect = (303, also_allowed.url)  # a POST turned GET: never followed
        hop = WebhookReceiver()
        hop.redirect = (308, also_allowed.url)  # allowed to allowed, method kept: followed
        with api(server.url, token) as c:
            for url in (bouncer.url, bouncer_303.url, hop.url):
                assert (
                    c.post("/api/v1/alerts/channels", json={"kind": "webhook", "target": url}).status_code
                    == 201
                )
            _fail_a_job(c)
            deliveries = {d.target: d for d in _settled(sessions, 3)}
    finally:
        server.stop()
        for r in (bouncer, inner, also_allowed, bouncer_303, hop):
            r.close()
    assert inner.requests == 0 and bouncer.requests == 1
    assert deliveries[bouncer.url].status == "failed" and "refused" in deliveries[bouncer.url].last_error
    assert (
        deliveries[bouncer_303.url].status == "failed"
        and "not followed" in deliveries[bouncer_303.url].last_error
    )
    assert deliveries[hop.url].status == "sent" and len(also_allowed.bodies) == 1
