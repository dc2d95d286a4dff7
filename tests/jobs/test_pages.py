"""Pages and their JSON twins over a real server, with jobs driven through ingest."""

import re
from html import unescape

import httpx

from tests.conftest import make_token
from tests.helpers import api
from tests.jobs import seed
from tpuwatch.server.db import transaction
from tpuwatch.server.models import ApiToken


def _seeded(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        good = seed.good_run(c)
        failed = seed.failed_run(c)
        running = seed.running_run(c)
    return token, good, failed, running


def test_overview_puts_failed_first_and_its_json_twin_matches_the_page(live_server, sessions):
    token, good, failed, running = _seeded(live_server, sessions)
    with api(live_server.url, token) as c:
        ov = c.get("/", params={"format": "json"}).json()
        same = c.get("/api/v1/overview").json()
        html = c.get("/").text
        fragment = c.get("/fragments/jobs").text
        only_running = c.get("/api/v1/overview", params={"status": "running"}).json()
        by_name = c.get("/api/v1/overview", params={"name": "resnet"}).json()
        other_project = c.get("/api/v1/overview", params={"project": "nobody"}).json()
    assert [j["id"] for j in ov["jobs"]] == [failed, running, good]
    assert [j["id"] for j in same["jobs"]] == [failed, running, good]
    top = ov["jobs"][0]
    assert top["error_category"] == "oom" and top["postmortem_url"] == f"/jobs/{failed}/postmortem"
    assert 0.98 < top["hbm_peak_share"] < 1.0
    assert 0.0 < top["input_share"] < 0.2 and len(top["trend"]) > 1
    assert ov["projects"] == ["team-a"]
    assert 'id="jobs-table"' in html and fragment.lstrip().startswith("{#") is False
    assert fragment.count("<tr") == 4 and "<html" not in fragment and "<polyline" in fragment
    assert [j["id"] for j in only_running["jobs"]] == [running]
    assert [j["id"] for j in by_name["jobs"]] == [running] and other_project["jobs"] == []


def test_job_page_marks_the_straggler_and_shows_cards_and_timeline(live_server, sessions):
    token, _, failed, _ = _seeded(live_server, sessions)
    with api(live_server.url, token) as c:
        data = c.get(f"/jobs/{failed}", params={"format": "json"}).json()
        html = c.get(f"/jobs/{failed}").text
    assert [h["straggler"] for h in data["hosts"]] == [False, True]
    assert data["error_cards"][0]["category"] == "oom" and data["error_cards"][0]["fixes"]
    assert {"hbm_near_limit", "slow_host"} <= {c["subtype"] for c in data["perf_cards"]}
    kinds = [t["kind"] for t in data["timeline"]]
    for kind in ("start", "first_step", "checkpoint", "error", "archive", "exit"):
        assert kind in kinds
    assert kinds.index("start") < kinds.index("first_step") < kinds.index("exit")
    assert len(data["device"]["hbm"]) == 4 and len(data["device"]["duty"]) == 4  # 2 hosts x 2 chips
    for chart in ("step_time", "input_wait", "hbm", "duty"):
        assert f'id="chart-{chart}"' in html
    assert "straggler" in html and "<script>alert(1)" not in html


def test_postmortem_holds_the_story_and_renders_log_text_inert(live_server, sessions):
    token, good, failed, _ = _seeded(live_server, sessions)
    with api(live_server.url, token) as c:
        pm = c.get(f"/api/v1/jobs/{failed}/postmortem").json()
        twin = c.get(f"/jobs/{failed}/postmortem", params={"format": "json"}).json()
        html = c.get(f"/jobs/{failed}/postmortem").text
    assert twin == pm  # the page's JSON twin is the API's answer
    assert [p["name"] for p in pm["phases"]] == ["start", "compile", "steady", "last_step", "failure"]
    assert pm["phases"][1]["duration"] >= 20
    assert pm["error_card"]["category"] == "oom"
    assert any(line["hit"] and "Ran out of memory" in line["text"] for line in pm["log"])
    assert any(seed.XSS_LINE == line["text"] for line in pm["log"])
    assert pm["archive_url"] == "https://storage.cloud.google.com/team-logs/llama/fail-1.log"
    assert pm["previous"]["id"] == good and pm["this_run"]["hosts"] == 2
    assert len(pm["last_steps"]) == 20 and pm["hbm"]["hbm"]
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "<script>alert(1)" not in html
    assert "<img src=x" not in html


def test_postmortem_export_is_one_self_contained_file(live_server, sessions):
    token, _, failed, _ = _seeded(live_server, sessions)
    with api(live_server.url, token) as c:
        r = c.get(f"/jobs/{failed}/postmortem.html", params={"download": 1})
    assert r.status_code == 200
    assert r.headers["content-disposition"] == f'attachment; filename="postmortem-{failed}-llama-oom.html"'
    html = r.text
    assert not re.search(r'(src|href)="/', html), "the file must not load anything from the server"
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert len(scripts) == 2 and "Plotly" in scripts[0] and "data-figure" in scripts[1]
    assert html.count('data-figure="') == 3 and "<style>" in html  # last steps, HBM, goodput
    meta = unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1))
    assert meta.count("'sha256-") == 2 and "unsafe-inline" not in meta.split("style-src")[0]
    assert r.headers["content-security-policy"] == meta  # served and saved, the same scripts only
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_pages_need_a_session_and_a_viewer_token_logs_in(live_server, sessions):
    _seeded(live_server, sessions)
    viewer = make_token(sessions, scope="read")
    ingest_only = make_token(sessions, scope="ingest")
    with httpx.Client(base_url=live_server.url, timeout=30) as c:
        assert c.get("/").status_code == 303 and c.get("/").headers["location"] == "/login?next=/"
        assert c.get("/fragments/jobs").status_code == 303
        assert c.get("/api/v1/overview").status_code == 401
        form = c.get("/login").text
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', form)
        fields = {"csrf_token": csrf.group(1)} if csrf else {}
        refused = c.post("/login", data={**fields, "token": ingest_only, "next": "/"})
        assert refused.status_code == 401
        bad_next = c.post("/login", data={**fields, "token": viewer, "next": "//evil.example/x"})
        assert bad_next.status_code == 303 and bad_next.headers["location"] == "/"
        cookie = c.cookies.get("tpuwatch_session")
        assert viewer not in cookie and viewer[4:20] not in cookie  # the token itself never travels
        assert c.get("/").status_code == 200 and c.get("/api/v1/overview").status_code == 200
        with transaction(sessions) as s:
            for t in s.query(ApiToken).filter(ApiToken.scope == "read"):
                t.revoked_at = 1.0
        assert c.get("/").status_code == 303  # revoking the token ends the session


def test_an_unknown_job_or_address_is_an_html_page_for_a_browser_and_json_for_the_api(live_server, sessions):
    token = make_token(sessions)
    browser = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    with api(live_server.url, token) as c:
        page = c.get("/jobs/987654", headers=browser)
        nowhere = c.get("/no/such/page", headers=browser)
        twin = c.get("/jobs/987654", params={"format": "json"}, headers=browser)
        from_api = c.get("/api/v1/jobs/987654", headers=browser)
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "no job 987654 in this project" in page.text and "<html" in page.text
    assert nowhere.status_code == 404 and "There is no page at this address." in nowhere.text
    assert twin.status_code == 404 and twin.json() == {"detail": "no job 987654 in this project"}
    assert from_api.status_code == 404 and from_api.json() == {"detail": "no job 987654 in this project"}
