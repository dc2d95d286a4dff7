"""The alerts API, the /alerts page with its forms, and `tpuwatch alerts channel`."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from tests.alerts.conftest import fast
from tests.alerts.test_evaluator import _job
from tests.conftest import make_token, start_server
from tests.helpers import api
from tpuwatch.server.alerts.evaluator import Evaluator
from tpuwatch.server.db import transaction


@pytest.fixture
def server(settings):
    # The loop is off: the test opens alerts itself, so nothing changes under it.
    live = start_server(fast(settings, alerts_enabled=False))
    yield live
    live.stop()


def _open_alert(sessions, settings) -> int:
    _job(sessions)
    with transaction(sessions) as s:
        ((alert_id, _),) = Evaluator(fast(settings, lost_after_seconds=1e6)).evaluate(s)
    return alert_id


def test_an_alert_is_listed_acknowledged_and_silenced_through_the_api(server, sessions, settings):
    token = make_token(sessions)
    alert_id = _open_alert(sessions, settings)
    with api(server.url, token) as c:
        (a,) = c.get("/api/v1/alerts").json()["alerts"]
        assert a["id"] == alert_id and a["state"] == "open" and a["condition"] == "stalled"
        assert c.get("/api/v1/alerts", params={"state": "resolved"}).json()["alerts"] == []
        r = c.post(f"/api/v1/alerts/{alert_id}/ack")
        assert r.status_code == 200 and r.json()["state"] == "acknowledged"
        r = c.post(f"/api/v1/alerts/{alert_id}/silence", json={"seconds": 7200})
        body = r.json()
        assert body["state"] == "silenced" and body["silenced_until"] > time.time() + 7000
        assert [h["action"] for h in body["history"]] == ["fired", "acked", "silenced"]
        assert c.post(f"/api/v1/alerts/{alert_id}/silence", json={"seconds": 5}).status_code == 422
        assert c.post("/api/v1/alerts/999/ack").status_code == 404
        assert c.get("/api/v1/alerts", params={"state": "bogus"}).status_code == 422
    other = make_token(sessions, project="team-b")
    with api(server.url, other) as c:
        assert c.get("/api/v1/alerts").json()["alerts"] == []
        assert c.post(f"/api/v1/alerts/{alert_id}/ack").status_code == 404
    with api(server.url, None) as c:
        assert c.get("/api/v1/alerts").status_code == 401


def test_channels_are_validated_scoped_and_removable(server, sessions):
    token = make_token(sessions)
    reader = make_token(sessions, scope="read")
    with api(server.url, token) as c:
        r = c.post("/api/v1/alerts/channels", json={"kind": "webhook", "target": "ftp://nope"})
        assert r.status_code == 422 and "http" in r.text
        assert (
            c.post("/api/v1/alerts/channels", json={"kind": "email", "target": "not-an-address"}).status_code
            == 422
        )
        assert c.post("/api/v1/alerts/channels", json={"kind": "sms", "target": "12345"}).status_code == 422
        hook = "https://hooks.slack.com/services/T000/B000/secretsecret"
        r = c.post("/api/v1/alerts/channels", json={"kind": "webhook", "target": hook})
        assert r.status_code == 201
        channel_id = r.json()["id"]
        (listed,) = c.get("/api/v1/alerts/channels").json()["channels"]
        assert "secretsecret" not in listed["target"]  # a webhook URL is a credential
    with api(server.url, reader) as c:
        r = c.post("/api/v1/alerts/channels", json={"kind": "email", "target": "a@b.example"})
        assert r.status_code == 403
    with api(server.url, make_token(sessions, project="team-b")) as c:
        assert c.get("/api/v1/alerts/channels").json()["channels"] == []
        assert c.delete(f"/api/v1/alerts/channels/{channel_id}").status_code == 404
    with api(server.url, token) as c:
        assert c.delete(f"/api/v1/alerts/channels/{channel_id}").status_code == 204
        assert c.get("/api/v1/alerts/channels").json()["channels"] == []


def test_the_alerts_page_needs_a_login_shows_alerts_and_its_forms_work(server, sessions, settings):
    token = make_token(sessions)
    alert_id = _open_alert(sessions, settings)
    with api(server.url, None) as anon:
        r = anon.get("/alerts", follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"].startswith("/login")
    with api(server.url, token) as c:
        page = c.get("/alerts")
        assert page.status_code == 200
        assert f'action="/alerts/{alert_id}/ack"' in page.text and "no step for" in page.text
        assert 'href="/alerts"' in page.text
        twin = c.get("/alerts", params={"format": "json"}).json()
        assert [a["id"] for a in twin["alerts"]] == [alert_id] and twin["channels"] == []
        assert (
            c.get(f"/alerts/{alert_id}", params={"format": "json"}).json()
            == c.get(f"/api/v1/alerts/{alert_id}").json()
        )
        r = c.post(f"/alerts/{alert_id}/ack", follow_redirects=False)
        assert r.status_code == 303
        assert c.get(f"/api/v1/alerts/{alert_id}").json()["state"] == "acknowledged"
        r = c.post(f"/alerts/{alert_id}/silence", data={"seconds": "3600"}, follow_redirects=False)
        assert r.status_code == 303
        assert c.get(f"/api/v1/alerts/{alert_id}").json()["state"] == "silenced"
        r = c.post(
            "/alerts/channels", data={"kind": "email", "target": "oncall@example.com"}, follow_redirects=False
        )
        assert r.status_code == 303
        detail = c.get(f"/alerts/{alert_id}")
        assert detail.status_code == 200 and "acked" in detail.text
        assert "oncall@example.com" in c.get("/alerts").text


def test_the_cli_adds_lists_and_removes_channels(tmp_path, sqlite_template):
    import shutil

    shutil.copy(sqlite_template, tmp_path / "cli.db")
    db = ["--db", f"sqlite:///{tmp_path / 'cli.db'}"]

    def cli(*args):
        cmd = [sys.executable, "-m", "tpuwatch.cli", "alerts", "channel", *args, *db]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60)

    add = cli("add", "--project", "vision", "--email", "oncall@example.com")
    assert add.returncode == 0, add.stderr
    assert cli("add", "--project", "vision", "--webhook", "https://hooks.example.com/x1234").returncode == 0
    assert cli("add", "--project", "vision", "--webhook", "gopher://x").returncode == 2
    listed = cli("list", "--project", "vision").stdout
    assert "oncall@example.com" in listed and "hooks.example.com" in listed
    first = listed.split("\t", 1)[0]
    assert cli("remove", first).returncode == 0
    assert "oncall@example.com" not in cli("list").stdout
    assert cli("remove", "9999").returncode == 1
