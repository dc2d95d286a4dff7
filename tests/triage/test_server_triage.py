"""Triage inside the server: error events are classified on arrival; logs can be pasted."""

import re
import time

from tests.conftest import make_token, start_server
from tests.helpers import api
from tpuwatch.server.settings import Settings

T0 = time.time() - 86400  # a day ago: inside the window of times ingest accepts

OOM = (
    "Traceback (most recent call last):\n"
    '  File "/home/me/train.py", line 88, in <module>\n'
    "    model.fit(ds, epochs=3)\n"
    "tensorflow.python.framework.errors_impl.ResourceExhaustedError: Ran out of memory in memory space hbm."
    " Used 17.70G of 15.48G hbm. Exceeded hbm capacity by 2.22G.\n"
)


def test_error_events_arrive_with_their_cards(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        r = c.post(
            "/api/v1/ingest",
            json={
                "stream": "s",
                "seq": 0,
                "run": {"run_id": "r", "job": "big"},
                "events": [[T0, "error", OOM, {"source": "traceback"}]],
            },
        )
        assert r.status_code == 200, r.text
        job_id = r.json()["job_id"]
        [event] = c.get(f"/api/v1/jobs/{job_id}/events").json()["events"]
    cards = event["data"]["cards"]
    assert cards[0]["category"] == "oom"
    assert "Ran out of memory in memory space hbm" in cards[0]["evidence"]
    assert cards[0]["fixes"]


def test_triage_api_classifies_pasted_text(live_server, sessions):
    token = make_token(sessions, scope="read")
    with api(live_server.url, token) as c:
        r = c.post("/api/v1/triage", json={"text": OOM})
        nothing = c.post("/api/v1/triage", json={"text": "all good, epoch 3 done\n"})
    assert r.status_code == 200 and r.json()["category"] == "oom"
    assert nothing.json() == {"cards": [], "category": "unknown"}


def test_triage_api_needs_a_token(live_server):
    with api(live_server.url, None) as c:
        assert c.post("/api/v1/triage", json={"text": OOM}).status_code == 401


def test_triage_page_shows_cards_and_keeps_pasted_html_inert(tmp_path, database_url):
    settings = Settings(db=database_url, data_dir=tmp_path / "d", secret_key="k", open_access=True)
    server = start_server(settings)
    try:
        with api(server.url, None) as c:
            # A form post carries the session's CSRF token, as the page's form does.
            csrf = re.search(r'name="csrf_token" value="([^"]+)"', c.get("/triage").text).group(1)
            page = c.post("/triage", data={"text": OOM + "<script>alert(1)</script>\n", "csrf_token": csrf})
    finally:
        server.stop()
    assert page.status_code == 200
    assert "Ran out of memory in memory space hbm" in page.text
    assert "<script>alert(1)</script>" not in page.text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text


def test_the_same_unknown_error_on_several_hosts_and_jobs_is_one_group(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        for i, (run, host) in enumerate([("a", 0), ("a", 1), ("b", 0)]):
            msg = (
                'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n'
                f"FrobnicatorError: shard {17 + i} lost its lease after {90 + i} s"
            )
            c.post(
                "/api/v1/ingest",
                json={
                    "stream": f"s{i}",
                    "seq": 0,
                    "run": {"run_id": run, "job": f"job-{run}", "host": host},
                    "events": [[T0 + i, "error", msg, None]],
                },
            )
        c.post(
            "/api/v1/ingest",
            json={
                "stream": "s9",
                "seq": 0,
                "run": {"run_id": "c", "job": "job-c"},
                "events": [[T0 + 100, "error", "QuuxError: the widget melted", None]],
            },
        )
        groups = c.get("/api/v1/triage/unknown").json()["groups"]
        twin = c.get("/triage", params={"format": "json"}).json()  # the triage page's JSON twin
    assert twin["unknown"]["groups"] == groups
    assert groups[0]["count"] == 3 and groups[0]["hosts"] == 3
    assert [j["name"] for j in groups[0]["jobs"]] == ["job-a", "job-b"]
    assert "FrobnicatorError" in groups[0]["template"]
    assert groups[1]["count"] == 1
