"""Log text is shown as text: markup in an error message comes back escaped in the job page."""

from __future__ import annotations

import time

from tests.conftest import make_token
from tests.helpers import api
from tests.security.conftest import batch

T0 = time.time() - 86400  # a day ago: inside the window of times ingest accepts

PAYLOAD = "ValueError: <script>alert('pwned')</script><img src=x onerror=alert(1)>"


def test_script_in_an_error_message_is_escaped_in_the_job_page(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        b = batch("r-xss", "xss-job", PAYLOAD)
        b["events"].append([T0 + 11, "checkpoint", "<b>saved</b>", None])
        job_id = c.post("/api/v1/ingest", json=b).json()["job_id"]
        html = c.get(f"/jobs/{job_id}").text
        overview = c.get("/").text
    assert "<script>alert(" not in html and "<img src=x" not in html and "<b>saved</b>" not in html
    assert "&lt;script&gt;alert(" in html
    assert "&lt;b&gt;saved&lt;/b&gt;" in html
    assert "<script>alert(" not in overview


def test_a_job_name_with_markup_is_escaped_everywhere_it_shows(live_server, sessions):
    token = make_token(sessions)
    name = '"><script>alert(2)</script>'
    with api(live_server.url, token) as c:
        job_id = c.post("/api/v1/ingest", json=batch("r-name", name, "RuntimeError: x")).json()["job_id"]
        for path in ("/", f"/jobs/{job_id}"):
            html = c.get(path).text
            assert "<script>alert(2)" not in html, path
