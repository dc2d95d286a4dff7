"""The trusted server-wide webhook is trusted as a URL, not as a host; NAT64 and IPv4-compatible
forms are judged by the IPv4 address inside; credentials never sit in a webhook URL.

The review's cases: with ``TPUWATCH_ALERT_WEBHOOK_URL=http://localhost:PORT/ops-hook`` a project
token added ``http://localhost:OTHER/anything`` (201) and it was posted to, and a 307 from the
allowed receiver got there too; ``64:ff9b::a9fe:a9fe``, ``64:ff9b::7f00:1`` and ``::127.0.0.1``
passed the check; a webhook's ``user:password@`` was shown to read-only viewers; ``LOCALHOST.`` was
resolved through the system resolver when added.
"""

from __future__ import annotations

import pytest

from tests.alerts.conftest import fast
from tests.alerts.receivers import WebhookReceiver
from tests.alerts.test_egress import _fail_a_job, _settled
from tests.conftest import make_token, start_server
from tests.helpers import api
from tpuwatch.server.alerts.egress import EgressPolicy, EgressRefused


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("64:ff9b::a9fe:a9fe", "link-local"),
        ("64:ff9b::7f00:1", "loopback"),
        ("64:ff9b:1::a00:1", "private"),
        ("::127.0.0.1", "loopback"),
        ("::a9fe:a9fe", "link-local"),
    ],
)
def test_nat64_and_ipv4_compatible_forms_are_judged_by_their_ipv4(address, reason):
    with pytest.raises(EgressRefused, match=reason):
        EgressPolicy().vet(f"http://[{address}]:8080/hook")


def test_the_server_wide_webhook_trusts_its_url_and_paths_below_not_its_host():
    policy = EgressPolicy.parse("", ("http://localhost:9000/ops-hook",))
    assert policy.vet("http://localhost:9000/ops-hook").port == 9000
    assert policy.vet("http://localhost:9000/ops-hook/team-a").port == 9000
    for other in (
        "http://localhost:9001/ops-hook",
        "http://localhost:9000/ops-hookx",
        "http://localhost:9000/admin",
        "https://localhost:9000/ops-hook",
        "http://127.0.0.1:9000/ops-hook",
    ):
        with pytest.raises(EgressRefused, match="loopback"):
            policy.vet(other)


def test_a_project_cannot_reach_another_port_of_the_trusted_host_nor_be_redirected_there(settings, sessions):
    ops, other = WebhookReceiver(), WebhookReceiver()
    ops.redirect = (307, other.url)  # the trusted receiver bounces elsewhere on its host
    ops_url = ops.url.replace("127.0.0.1", "localhost")
    server = start_server(fast(settings, ops_url))
    try:
        token = make_token(sessions)
        with api(server.url, token) as c:
            for target in (other.url, other.url.replace("127.0.0.1", "localhost")):
                r = c.post("/api/v1/alerts/channels", json={"kind": "webhook", "target": target})
                assert r.status_code == 422, r.text
            _fail_a_job(c)
            (delivery,) = _settled(sessions, 1)
    finally:
        server.stop()
        ops.close()
        other.close()
    assert ops.requests == 1 and other.requests == 0
    assert delivery.status == "failed" and "refused" in delivery.last_error


@pytest.mark.parametrize(
    "target", ["https://user:secret@hooks.example.com/x", "https://:pw@hooks.example.com/x"]
)
def test_credentials_in_a_webhook_url_are_refused(settings, sessions, target):
    server = start_server(fast(settings, alerts_enabled=False))
    try:
        with api(server.url, make_token(sessions)) as c:
            r = c.post("/api/v1/alerts/channels", json={"kind": "webhook", "target": target})
        assert r.status_code == 422 and "password" in r.text
    finally:
        server.stop()


def test_a_stored_url_with_credentials_is_never_shown_to_a_viewer():
    from tpuwatch.server.alerts.output import redact

    shown = redact("webhook", "https://user:secret@hooks.example.com/services/T0/B0/abcd")
    assert "secret" not in shown and "user" not in shown and "hooks.example.com" in shown


def test_a_trailing_dot_name_is_refused_when_added_without_being_resolved(settings, sessions, monkeypatch):
    import socket

    asked = []
    real = socket.getaddrinfo
    monkeypatch.setattr(
        socket, "getaddrinfo", lambda host, *a, **k: asked.append(host) or real(host, *a, **k)
    )
    server = start_server(fast(settings, alerts_enabled=False))
    try:
        with api(server.url, make_token(sessions)) as c:
            r = c.post(
                "/api/v1/alerts/channels", json={"kind": "webhook", "target": "http://LOCALHOST./hook"}
            )
        assert r.status_code == 422 and "trailing dot" in r.text
    finally:
        server.stop()
    assert not [h for h in asked if h.lower().startswith("localhost")]
