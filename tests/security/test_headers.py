"""Security headers on every kind of response: pages, API, errors, static files, redirects."""

from __future__ import annotations

import pytest

from tests.helpers import api
from tpuwatch.server.security.headers import CSP

EXPECTED_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; frame-ancestors 'none'"
)


def test_the_policy_forbids_inline_and_foreign_scripts_and_framing():
    assert CSP == EXPECTED_CSP


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/login",
        "/api/v1/jobs",
        "/api/v1/jobs/999999",
        "/healthz",
        "/static/css/app.css",
        "/nope",
        "/metrics",
    ],
)
def test_every_response_carries_the_security_headers(live_server, sessions, path):
    from tests.conftest import make_token

    with api(live_server.url, make_token(sessions)) as c:
        r = c.get(path, follow_redirects=False)
    assert r.headers["content-security-policy"] == EXPECTED_CSP
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "same-origin"
    assert r.headers["x-frame-options"] == "DENY"


def test_anonymous_redirect_to_login_carries_the_headers_too(live_server):
    with api(live_server.url, None) as c:
        r = c.get("/", follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["content-security-policy"] == EXPECTED_CSP


def test_pages_contain_no_inline_script(two_projects):
    """The CSP would block an inline script; make sure the pages do not rely on one."""
    import re

    a = two_projects.a
    with api(two_projects.url, a.token) as c:
        for path in ("/", f"/jobs/{a.job_id}", "/triage", "/login"):
            html = c.get(path).text
            for tag in re.findall(r"<script\b[^>]*>", html):
                assert "src=" in tag, f"{path} has an inline script: {tag}"
            assert not re.search(r"\son[a-z]+\s*=", html), f"{path} has an inline event handler"
