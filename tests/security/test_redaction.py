"""No secret reaches a read-only token: every endpoint's output is checked.

A webhook URL is a secret (whoever holds it can post to the channel). Once stored, tokens and page
sessions see its host and last characters only, in the channel list, in each delivery's target and
in a delivery's error text; only the server's own CLI shows it whole.
"""

from __future__ import annotations

import re
import time

from tests.conftest import make_token
from tests.helpers import api
from tests.security.test_isolation import PROBED_PARAMS, PUBLIC, _routes
from tpuwatch.server.alerts.service import alert_detail
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Alert, AlertDelivery

HOOK_SECRET = "T0KEN-in-the-path-Zq9x"


def _plant_delivery(sessions, alert_id: int, target: str) -> None:
    with transaction(sessions) as s:
        now = time.time()
        s.add(
            AlertDelivery(
                alert_id=alert_id,
                kind="firing",
                channel="webhook",
                target=target,
                subject="stalled",
                body={},
                status="failed",
                attempts=3,
                created_at=now,
                next_attempt_at=now,
                last_error=f"POST {target}: HTTP 500",
            )
        )


def test_no_endpoint_shows_a_webhook_url_to_a_read_only_token(settings, sessions, two_projects):
    a = two_projects.a
    target = f"https://hooks.example.com/services/{HOOK_SECRET}"
    with api(two_projects.url, a.token) as full:
        made = full.post("/api/v1/alerts/channels", json={"kind": "webhook", "target": target})
        assert made.status_code == 201 and made.json()["target"] == target  # echoed to who sent it
        assert HOOK_SECRET not in full.get("/api/v1/alerts/channels").text
    _plant_delivery(sessions, a.alert_id, target)
    with transaction(sessions) as s:  # the secret is there to leak: the CLI's view shows it
        whole = alert_detail(s, s.get(Alert, a.alert_id), None)
        assert [d.target for d in whole.deliveries] == [target] and HOOK_SECRET in whole.deliveries[
            0
        ].last_error

    reader = make_token(sessions, project=a.name, scope="read")
    checked = []
    with api(two_projects.url, reader) as c:
        for method, path in _routes(settings):
            if (method, path) in PUBLIC or method not in ("GET", "POST") or path == "/api/v1/ingest":
                continue
            url = re.sub(r"{(\w+)(?::\w+)?}", lambda m: str(getattr(a, PROBED_PARAMS[m.group(1)])), path)
            for params in ({}, {"format": "json"}):
                resp = c.request(method, url, params=params)
                assert resp.status_code < 500, (method, path, resp.status_code)
                assert HOOK_SECRET not in resp.text, f"{method} {path} {params} shows the webhook URL"
            checked.append((method, path))
        detail = c.get(f"/api/v1/alerts/{a.alert_id}").json()
    assert ("GET", "/api/v1/alerts/{alert_id}") in checked and ("GET", "/alerts/{alert_id}") in checked
    [planted] = [d for d in detail["deliveries"] if d["target"].startswith("https://hooks.example.com")]
    assert planted["target"].endswith(HOOK_SECRET[-4:]) and HOOK_SECRET not in planted["last_error"]
