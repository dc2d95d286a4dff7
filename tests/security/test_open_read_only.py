"""``--open`` lets anyone read, not change: every change still needs a token (or a login).

The review's case: without a token anyone could add or delete any project's alert channels on an
``--open`` server, and create projects by naming them.
"""

from __future__ import annotations

import re

import httpx
import pytest

from tests.conftest import make_token, start_server
from tests.helpers import api
from tpuwatch.server.settings import Settings


@pytest.fixture
def open_server(database_url, tmp_path):
    server = start_server(
        Settings(
            db=database_url, data_dir=tmp_path / "d", secret_key="k", open_access=True, alerts_enabled=False
        )
    )
    yield server
    server.stop()


def test_anyone_reads_an_open_server_but_no_one_changes_it_without_a_token(open_server, sessions):
    token = make_token(sessions, "vision")
    with api(open_server.url, token) as owner:
        r = owner.post("/api/v1/alerts/channels", json={"kind": "webhook", "target": "https://8.8.8.8/h"})
        assert r.status_code == 201, r.text
        channel_id = r.json()["id"]
    with httpx.Client(base_url=open_server.url, follow_redirects=False) as anyone:
        assert anyone.get("/").status_code == 200
        assert anyone.get("/api/v1/jobs").status_code == 200
        r = anyone.post(
            "/api/v1/alerts/channels",
            json={"kind": "webhook", "target": "https://8.8.4.4/h", "project": "new-project"},
        )
        assert r.status_code == 401 and "--open" in r.text
        page = anyone.get("/alerts")
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
        for path, form in (
            ("/alerts/channels", {"kind": "webhook", "target": "https://8.8.4.4/h", "project": "x"}),
            (f"/alerts/channels/{channel_id}/delete", {}),
            ("/alerts/1/ack", {}),
        ):
            r = anyone.post(path, data={**form, "csrf_token": csrf})
            assert r.status_code == 303 and r.headers["location"].startswith("/login"), (path, r.text)
    with api(open_server.url, token) as owner:
        channels = owner.get("/api/v1/alerts/channels").json()["channels"]
    assert [c["id"] for c in channels] == [channel_id]


def test_the_services_refuse_the_anonymous_open_visitor_too():
    from tpuwatch.server.alerts import service
    from tpuwatch.server.deps import OPEN
    from tpuwatch.server.errors import Forbidden

    with pytest.raises(Forbidden, match="--open"):
        service.add_channel_for(None, OPEN, "webhook", "https://8.8.8.8/h", "vision")
