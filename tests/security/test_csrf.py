"""CSRF: every form post must carry the session's token; bearer and JSON API calls need none."""

from __future__ import annotations

import re

import httpx

from tests.conftest import make_token


def _token_in(html: str) -> str:
    m = re.search(r'<input type="hidden" name="csrf_token" value="([^"]+)">', html)
    assert m, "the form renders no CSRF field"
    return m.group(1)


def _browser(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=30, follow_redirects=False)


def _log_in(c: httpx.Client, token: str) -> None:
    csrf = _token_in(c.get("/login").text)
    r = c.post("/login", data={"token": token, "next": "/", "csrf_token": csrf})
    assert r.status_code == 303, r.text


def test_login_form_without_the_token_is_refused(live_server, sessions):
    token = make_token(sessions)
    with _browser(live_server.url) as c:
        c.get("/login")  # has a session now, but does not send its token back
        r = c.post("/login", data={"token": token, "next": "/"})
        assert r.status_code == 403
        assert "CSRF" in r.json()["detail"]
        assert c.get("/").status_code == 303  # not logged in


def test_login_form_from_another_site_without_a_session_is_refused(live_server, sessions):
    token = make_token(sessions)
    with _browser(live_server.url) as c:
        r = c.post("/login", data={"token": token, "next": "/", "csrf_token": "guessed"})
    assert r.status_code == 403


def test_login_with_the_token_works_and_a_stale_token_is_refused(live_server, sessions):
    token = make_token(sessions)
    with _browser(live_server.url) as c:
        _log_in(c, token)
        page = c.get("/triage")
        assert page.status_code == 200
        fresh = _token_in(page.text)
        assert c.post("/triage", data={"text": "x", "csrf_token": "stale" + fresh}).status_code == 403
        ok = c.post("/triage", data={"text": "RuntimeError: boom", "csrf_token": fresh})
        assert ok.status_code == 200
        assert c.post("/triage", data={"text": "x"}).status_code == 403


def test_a_token_in_the_header_is_accepted_for_scripts(live_server, sessions):
    with _browser(live_server.url) as c:
        _log_in(c, make_token(sessions))
        csrf = _token_in(c.get("/triage").text)
        r = c.post("/triage", data={"text": "x"}, headers={"X-CSRF-Token": csrf})
        assert r.status_code == 200


def test_logout_needs_the_token(live_server, sessions):
    with _browser(live_server.url) as c:
        _log_in(c, make_token(sessions))
        assert c.post("/logout").status_code == 403
        assert c.get("/").status_code == 200  # still logged in
        csrf = _token_in(c.get("/").text)
        assert c.post("/logout", data={"csrf_token": csrf}).status_code == 303
        assert c.get("/").status_code == 303


def test_multipart_forms_are_checked_too(live_server, sessions):
    with _browser(live_server.url) as c:
        _log_in(c, make_token(sessions))
        csrf = _token_in(c.get("/triage").text)
        bad = c.post("/triage", files={"text": (None, "x")})
        good = c.post("/triage", files={"text": (None, "x"), "csrf_token": (None, csrf)})
    assert bad.status_code == 403 and good.status_code == 200


def test_api_clients_with_a_bearer_token_need_no_csrf_token(live_server, sessions):
    token = make_token(sessions)
    with _browser(live_server.url) as c:
        r = c.post("/triage", data={"text": "x"}, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200
        anonymous_json = c.post("/api/v1/triage", json={"text": "x"})
        assert anonymous_json.status_code == 401  # the auth answer, not a CSRF one
