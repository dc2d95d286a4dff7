"""The dashboard in Chromium: log in, overview, a job's charts (and a zoom), a post-mortem."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.conftest import make_token
from tests.helpers import api
from tests.jobs import seed
from tpuwatch.server.db import make_engine, make_sessionmaker


@pytest.fixture
def shots(tmp_path) -> Path:
    """Where screenshots go: `make screenshots` points this at docs/ (the README's pictures); a
    plain test run leaves docs/ alone."""
    return Path(os.environ.get("TPUWATCH_SCREENSHOT_DIR") or tmp_path)


def _seed(server) -> tuple[str, int]:
    engine = make_engine(server.settings.database_url)
    token = make_token(make_sessionmaker(engine), project="ml-research")
    engine.dispose()
    with api(server.url, token) as c:
        seed.good_run(c)
        failed = seed.failed_run(c, hosts=4, n=400)
        seed.running_run(c, job="resnet50-v5e", n=300, run_id="run-a")
        seed.running_run(c, job="t5-small-v4", n=250, run_id="run-b")
    return token, failed


def _traces(page, selector: str) -> int:
    return page.evaluate(f"() => document.querySelector('{selector}').data.length")


def test_log_in_see_jobs_open_a_job_zoom_and_read_its_postmortem(sqlite_server, page, shots):
    token, failed = _seed(sqlite_server)
    page.goto(sqlite_server.url + "/")
    assert "/login" in page.url
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_selector("#jobs-table tbody tr")
    rows = page.locator("#jobs-table tbody tr")
    assert rows.count() == 4
    assert "failed" in rows.first.inner_text() and "oom" in rows.first.inner_text()
    page.screenshot(path=str(shots / "overview.png"), full_page=True)

    rows.first.locator("a").first.click()
    page.wait_for_url(f"**/jobs/{failed}")
    page.wait_for_function("() => document.querySelector('#chart-step_time').data?.length === 4")
    assert page.locator("#chart-step_time .scatterlayer .trace").count() == 4
    assert _traces(page, "#chart-input_wait") == 4
    assert _traces(page, "#chart-hbm") == 8  # 4 hosts x 2 chips
    assert page.locator("tr.straggler").count() == 1
    assert page.locator("#error-cards .triage-card.cat-oom").count() == 1
    page.screenshot(path=str(shots / "job.png"), full_page=True)

    # Zooming asks the server for that window again (raw steps there, not the coarse view).
    page.evaluate("() => Plotly.relayout('chart-step_time', {'xaxis.range': [100, 160]})")
    page.wait_for_function("() => document.querySelector('#chart-step_time').dataset.source === 'raw:1'")
    xs = page.evaluate("() => document.querySelector('#chart-step_time').data[0].x")
    assert min(xs) >= 100 and max(xs) <= 160 and len(xs) == 61

    page.click("a.button")  # the post-mortem link of a failed job
    page.wait_for_url(f"**/jobs/{failed}/postmortem")
    card = page.locator("#pm-error .triage-card")
    assert "oom" in card.inner_text() and "Ran out of memory" in card.inner_text()
    log = page.locator("pre.pm-log")
    assert seed.XSS_LINE in log.inner_text()  # the markup shows as text...
    assert log.locator("script, img, b").count() == 0  # ...and made no elements
    page.wait_for_function("() => document.querySelector('#chart-last_steps').data?.length === 4")
    page.screenshot(path=str(shots / "postmortem.png"), full_page=True)
    assert page.dialogs == []


def test_overview_shows_a_new_job_without_reloading(sqlite_server, page):
    token, _ = _seed(sqlite_server)
    page.goto(sqlite_server.url + "/login")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_selector("#jobs-table tbody tr")
    page.evaluate("() => { window.__sameDocument = true; }")
    with api(sqlite_server.url, token) as c:
        seed.running_run(c, job="brand-new-job", n=50, run_id="late")
    started = time.monotonic()
    page.wait_for_selector("text=brand-new-job", timeout=15_000)
    assert page.evaluate("() => window.__sameDocument") is True  # refreshed in place, not reloaded
    assert time.monotonic() - started < 15
    assert page.dialogs == []
