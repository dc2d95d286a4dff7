"""A running job's page in Chromium keeps up by itself: step count, step chart and log advance
without a reload; the log filters by level and searches; a card's link opens the log at its line."""

from __future__ import annotations

import datetime as dt
import time

from tests.conftest import make_token
from tests.helpers import api
from tests.jobs.seed import post
from tpuwatch.server.db import make_engine, make_sessionmaker


def _steps(first: int, n: int, t0: float) -> list[list]:
    return [[i, t0 + 0.1 * (i - first + 1), 0.1, 0.0] for i in range(first, first + n)]


def _lines(first: int, n: int, t0: float) -> list[list]:
    return [[t0, i, "stdout", f"step {i} done"] for i in range(first, first + n)]


def test_a_running_jobs_page_advances_without_reload(sqlite_server, page, browser):
    engine = make_engine(sqlite_server.settings.database_url)
    token = make_token(make_sessionmaker(engine), project="live")
    engine.dispose()
    t0 = time.time() - 30
    with api(sqlite_server.url, token) as c:
        job_id = post(c, "live-1", "live-job", 0, 0, steps=_steps(1, 50, t0), logs=_lines(1, 50, t0))[
            "job_id"
        ]
        page.goto(sqlite_server.url + "/login")
        page.fill("input[name=token]", token)
        page.click("button[type=submit]")
        page.wait_for_url(sqlite_server.url + "/")
        page.goto(f"{sqlite_server.url}/jobs/{job_id}")
        page.wait_for_function("() => document.querySelector('#chart-step_time').data?.length === 1")
        assert page.locator("#live-steps").inner_text() == "50 steps"
        assert page.locator("#job-log .ln").count() == 50
        page.evaluate("() => { window.__same_page = true; }")

        now = time.time()
        warn = [[now, 81, "stderr", "W1123 10:00:00.0 input.cc:3] prefetch buffer empty"]]
        post(c, "live-1", "live-job", 0, 1, steps=_steps(51, 30, now - 3), logs=_lines(51, 30, now) + warn)
        page.wait_for_function(
            "() => document.querySelector('#live-steps')?.dataset.steps === '80'", timeout=15000
        )
        page.wait_for_function("() => document.querySelectorAll('#job-log .ln').length === 81", timeout=15000)
        page.wait_for_function(
            "() => Math.max(...document.querySelector('#chart-step_time').data[0].x) === 80", timeout=15000
        )
        assert page.evaluate("() => window.__same_page") is True  # no reload happened
        # The new steps' wall time (in the hover) comes from the job's own clock, extended by the
        # live fragment: step 80 ended at `now`, not where the first 50 steps' pace would put it.
        when = page.evaluate(
            "() => { const t = document.querySelector('#chart-step_time').data[0];"
            " return t.customdata[t.x.indexOf(80)][1]; }"
        )
        assert abs(dt.datetime.strptime(when, "%Y-%m-%d %H:%M:%S %z").timestamp() - now) < 1.5

        page.select_option("#log-level", "warning")
        page.wait_for_function("() => document.querySelectorAll('#job-log .ln').length === 1")
        assert "prefetch buffer empty" in page.locator("#job-log").inner_text()
        page.select_option("#log-level", "")
        page.fill("#log-q", "step 42 ")
        page.wait_for_function("() => document.querySelectorAll('#job-log .ln').length === 1")

        # An error's card links to its line; the link opens the log there, marked.
        err = 'Traceback (most recent call last):\n  File "t.py", line 1\nValueError: bad widget'
        post(c, "live-1", "live-job", 0, 2, events=[[time.time(), "error", err, {"line": 42}]])
    page.goto(f"{sqlite_server.url}/jobs/{job_id}")
    page.click("a.log-link")
    page.wait_for_selector("#job-log .ln.hit")
    assert page.locator("#job-log .ln.hit").inner_text().endswith("step 42 done")
    assert page.dialogs == []

    # Times read in the reader's zone, with UTC on hover.
    context = browser.new_context(timezone_id="Asia/Kolkata")
    try:
        india = context.new_page()
        india.goto(sqlite_server.url + "/login")
        india.fill("input[name=token]", token)
        india.click("button[type=submit]")
        india.wait_for_url(sqlite_server.url + "/")
        india.goto(f"{sqlite_server.url}/jobs/{job_id}")
        started = india.locator("#job-live time").first
        india.wait_for_function("() => document.querySelector('#job-live time')?.dataset.local === '1'")
        assert started.inner_text().endswith(" +05:30")
        assert started.get_attribute("title").endswith(" UTC")
        utc_hour = int(started.get_attribute("title")[11:13])
        local_hour = int(started.inner_text()[11:13])
        assert (local_hour - utc_hour) % 24 in (5, 6)  # +05:30: the hour moves on by 5 or 6
    finally:
        context.close()
