"""On-call on a phone and a keyboard, in Chromium: at 390 px the overview and the alerts page do not
scroll sideways and their actions are on screen and clickable; text keeps a contrast of at least
4.5:1 in the light and the dark theme (measured in the browser, on every page); the overview's
refresh keeps keyboard focus and the runs ticked for comparing; chart toolbars are out of the tab
order and every chart is labelled. ~30 s."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from tests.browser.session import login, token_for
from tests.conftest import start_server
from tests.helpers import api, wait_until
from tests.jobs import seed
from tpuwatch.server.settings import Settings

CONTRAST = (Path(__file__).parent / "contrast.js").read_text()  # () => [{ratio, text, ...}]


@pytest.fixture
def alert_server(tmp_path, sqlite_template):
    db = tmp_path / "phone.db"
    shutil.copy(sqlite_template, db)
    settings = Settings(
        db=f"sqlite:///{db}", data_dir=tmp_path / "data", secret_key="browser-tests", alert_eval_seconds=0.3
    )
    server = start_server(settings)
    yield server
    server.stop()


def _seed(server) -> tuple[str, int]:
    token = token_for(server, "on-call")
    with api(server.url, token) as c:
        failed = seed.failed_run(c, hosts=2, n=200)
        seed.running_run(c, job="resnet50-v5e-a-rather-long-job-name-for-a-phone", n=200, run_id="run-a")
        seed.good_run(c)
        t = time.time()
        rows = [[i, t - 30 + i * 0.1, 0.1, 0.01] for i in range(1, 100)]
        end = [
            [t, "error", "Traceback (most recent call last):\nValueError: boom", {}],
            [t, "exit", "", {"code": 1}],
        ]
        seed.post(c, "now-1", "fails-now", 0, 0, steps=rows, events=end)
        wait_until(lambda: c.get("/api/v1/alerts").json()["alerts"], timeout=20)
    return token, failed


def _no_sideways_scroll(page):
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], width


def _clickable(page, selector):
    """The element is on screen and is what a tap at its centre reaches."""
    el = page.locator(selector).first
    box = el.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390, (selector, box)
    el.scroll_into_view_if_needed()
    hit = page.evaluate(
        """sel => { const el = document.querySelector(sel), b = el.getBoundingClientRect();
          const top = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);
          return top === el || el.contains(top); }""",
        selector,
    )
    assert hit, selector


def test_overview_and_alerts_at_390_px_fit_and_their_actions_work(alert_server, browser):
    token, _ = _seed(alert_server)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        login(page, alert_server, token)
        page.wait_for_selector("#jobs-table tbody tr")
        _no_sideways_scroll(page)
        _clickable(page, "#jobs-table tbody tr .job-name a")
        _clickable(page, "#jobs-table tbody tr td.pick input")
        _clickable(page, "#compare-selected")

        page.goto(alert_server.url + "/alerts")
        _no_sideways_scroll(page)
        for action in ("form[action$='/ack'] button", "form[action$='/silence'] button"):
            _clickable(page, f".alerts-open {action}")
        page.locator(".alerts-open form[action$='/ack'] button").first.click()
        page.wait_for_selector(".alerts-acknowledged tbody tr")
        _no_sideways_scroll(page)
    finally:
        context.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_text_contrast_is_at_least_4_5_to_1(alert_server, browser, theme):
    token, failed = _seed(alert_server)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=theme)
    page = context.new_page()
    worst = []
    try:
        login(page, alert_server, token)
        with api(alert_server.url, token) as c:
            ids = [j["id"] for j in c.get("/api/v1/jobs").json()["jobs"]][:2]
        for path in (
            "/",
            f"/jobs/{failed}",
            f"/jobs/{failed}/postmortem",
            "/alerts",
            f"/compare?jobs={ids[0]}&jobs={ids[1]}",
        ):
            page.goto(alert_server.url + path)
            page.wait_for_load_state("networkidle")
            found = page.evaluate(CONTRAST)
            assert found, path
            low = [f for f in found if f["ratio"] < 4.5]
            assert low == [], (theme, path, low[:10])
            worst.append((min(f["ratio"] for f in found), path))
        print(f"\ncontrast_{theme}_min={min(worst)[0]} (page {min(worst)[1]}; {len(worst)} pages)")
    finally:
        context.close()


def test_refresh_keeps_focus_and_ticks_and_charts_take_no_tab_stops(alert_server, page):
    token, failed = _seed(alert_server)
    login(page, alert_server, token)
    box = page.locator("#jobs-table tbody tr td.pick input").nth(1)
    value = box.get_attribute("value")
    box.focus()
    page.keyboard.press("Space")
    before = int(page.evaluate("() => document.getElementById('jobs-live').dataset.refreshed || 0"))
    page.wait_for_function(
        f"() => Number(document.getElementById('jobs-live').dataset.refreshed || 0) > {before}",
        timeout=15_000,
    )
    focused = page.evaluate(
        "() => [document.activeElement.name, document.activeElement.value, document.activeElement.checked]"
    )
    assert focused == ["jobs", value, True]

    page.goto(f"{alert_server.url}/jobs/{failed}")
    page.wait_for_function("() => document.querySelectorAll('.chart[data-drawn=\"1\"]').length >= 3")
    stops = page.evaluate(
        """() => [...document.querySelectorAll('.chart *')].filter(e => e.tabIndex >= 0 &&
             e.matches('a[href], button, input, select, textarea, [tabindex]')).length"""
    )
    assert stops == 0
    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll('.chart:not([hidden])')]
             .filter(c => !c.getAttribute('aria-label')).map(c => c.id)"""
    )
    assert unlabelled == []
    # The first stop after the header's links is the error card's own link, not a chart toolbar.
    html = page.content()
    assert "sendDataToCloud" not in html and "plotlylogo" not in html.lower()
    assert page.locator(".modebar-btn[data-title*='Plotly'], a.modebar-btn[href*='plot.ly']").count() == 0
