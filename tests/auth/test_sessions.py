"""Page sessions end: at logout, when their token is revoked, after a while idle, and their cookie
is ``Secure`` when the page was served over TLS.

The review's case: a session cookie saved before ``POST /logout`` still read for 14 days (a
stateless signed cookie: logging out only told the browser to forget it).
"""

from __future__ import annotations

import re
import subprocess
import sys

import httpx
from sqlalchemy import select, update

from tests.conftest import make_token, start_server
from tpuwatch.server.db import transaction
from tpuwatch.server.models import ApiToken, WebSession


def _browser(url: str, **headers) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=30, follow_redirects=False, headers=headers)


def _csrf(html: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


def _log_in(c: httpx.Client, token: str) -> httpx.Response:
    r = c.post("/login", data={"token": token, "next": "/", "csrf_token": _csrf(c.get("/login").text)})
    assert r.status_code == 303, r.text
    return r


def _reads(url: str, cookie: str) -> bool:
    with _browser(url) as other:  # another client that only holds the saved cookie
        other.cookies.set("tpuwatch_session", cookie)
        return other.get("/api/v1/jobs").status_code == 200


def test_a_cookie_saved_before_logout_no_longer_reads(live_server, sessions):
    token = make_token(sessions)
    with _browser(live_server.url) as c:
        _log_in(c, token)
        saved = c.cookies["tpuwatch_session"]
        assert _reads(live_server.url, saved)
        r = c.post("/logout", data={"csrf_token": _csrf(c.get("/").text)})
        assert r.status_code == 303
    assert not _reads(live_server.url, saved)
    with transaction(sessions) as s:
        assert s.scalars(select(WebSession)).all() == []


def test_revoking_a_token_ends_the_sessions_made_with_it(live_server, sessions, settings):
    token = make_token(sessions)
    with _browser(live_server.url) as c:
        _log_in(c, token)
        saved = c.cookies["tpuwatch_session"]
    with transaction(sessions) as s:
        token_id = s.scalar(select(ApiToken.id))
    listed = _cli(settings, "list")
    assert listed.returncode == 0 and token[:10] in listed.stdout and "1 session(s)" in listed.stdout
    revoked = _cli(settings, "revoke", str(token_id))
    assert revoked.returncode == 0, revoked.stderr
    assert "ended 1 page session" in revoked.stdout
    assert not _reads(live_server.url, saved)
    with _browser(live_server.url, Authorization=f"Bearer {token}") as c:
        assert c.get("/api/v1/jobs").status_code == 401


def _cli(settings, *args):
    cmd = [sys.executable, "-m", "tpuwatch.cli", "token", *args, "--db", settings.database_url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def test_a_session_idle_past_the_limit_ends_and_one_in_use_stays(live_server, sessions):
    token = make_token(sessions)
    idle = live_server.settings.session_idle_seconds
    assert idle <= 12 * 3600  # the review found 14 days
    with _browser(live_server.url) as c:
        _log_in(c, token)
        saved = c.cookies["tpuwatch_session"]
    with transaction(sessions) as s:  # as if the browser had been away that long
        s.execute(update(WebSession).values(last_seen_at=WebSession.last_seen_at - idle + 60))
    assert _reads(live_server.url, saved)  # still within the limit, and this use renews it
    with transaction(sessions) as s:
        s.execute(update(WebSession).values(last_seen_at=WebSession.last_seen_at - idle - 1))
    assert not _reads(live_server.url, saved)


def test_a_session_ends_at_its_absolute_limit_however_busy(live_server, sessions):
    token = make_token(sessions)
    with _browser(live_server.url) as c:
        _log_in(c, token)
        saved = c.cookies["tpuwatch_session"]
    limit = live_server.settings.session_max_seconds
    with transaction(sessions) as s:
        s.execute(update(WebSession).values(created_at=WebSession.created_at - limit - 1))
    assert not _reads(live_server.url, saved)


def _cookie_on_login(url: str, token: str, **headers) -> str:
    """The Set-Cookie a login answers with. The cookie is carried by hand: a client rightly keeps a
    Secure cookie to itself over plain http, and the proxy in front is only pretended here."""
    with _browser(url, **headers) as c:
        form = c.get("/login")
        first = form.headers["set-cookie"].split(";", 1)[0]
        r = c.post(
            "/login",
            data={"token": token, "next": "/", "csrf_token": _csrf(form.text)},
            headers={"Cookie": first},
        )
        assert r.status_code == 303, r.text
        return r.headers["set-cookie"].lower()


def test_the_session_cookie_is_secure_when_the_page_came_over_tls(live_server, sessions):
    token = make_token(sessions)
    cookie = _cookie_on_login(live_server.url, token)
    assert "secure" not in cookie and "httponly" in cookie and "samesite=strict" in cookie
    max_age = int(re.search(r"max-age=(\d+)", cookie).group(1))
    assert max_age <= live_server.settings.session_max_seconds
    # A TLS-terminating proxy on this host says so (uvicorn trusts X-Forwarded-Proto from 127.0.0.1).
    assert "secure" in _cookie_on_login(live_server.url, token, **{"X-Forwarded-Proto": "https"})


def test_secure_cookies_can_be_required_behind_any_proxy(settings, sessions):
    server = start_server(settings.model_copy(update={"secure_cookies": True}))
    try:
        assert "secure" in _cookie_on_login(server.url, make_token(sessions))
    finally:
        server.stop()
