"""Reading time on a job page in Chromium: one x axis (step or time) for every chart, HBM placed
on the step axis through the job's clock, linked zoom, a shared hover with local wall time, and
charts that fit the page at desktop and phone widths."""

from __future__ import annotations

import re
import time

import pytest

from tests.browser.session import login, token_for
from tests.helpers import api
from tests.jobs import seed

STEP = "#chart-step_time"
WAIT = "#chart-input_wait"
HBM = "#chart-hbm"
LOSS = ".training-chart[data-key='loss']"


def _seed(server) -> tuple[str, int, list]:
    token = token_for(server, "clock")
    t0 = time.time() - 3600
    rows = seed.steps(300, t0)
    metrics = [[r[1], "tpu.hbm.used_bytes", 0, (10 + r[0] / 100) * 2**30] for r in rows[::10]]
    metrics += [[r[1], "tpu.hbm.total_bytes", 0, 16 * 2**30] for r in rows[::10]]
    metrics += [[r[1], "loss", None, 3.0 / r[0], r[0]] for r in rows[::5]]
    events = [[t0, "start", "python train.py", {"argv": ["python", "train.py"]}]]
    with api(server.url, token) as c:
        job_id = seed.post(c, "clock-1", "clock-job", 0, 0, steps=rows, metrics=metrics, events=events)[
            "job_id"
        ]
    return token, job_id, rows


def _drawn(page):
    for sel in (STEP, WAIT, HBM, LOSS):
        page.wait_for_function(f'() => document.querySelector("{sel}")?.dataset.drawn === "1"')


def _xrange(page, sel):
    return page.evaluate(f'() => document.querySelector("{sel}")._fullLayout.xaxis.range.slice()')


def _hover(page, sel) -> str:
    """The lines of a chart's first hover label."""
    return page.evaluate(
        f"() => [...document.querySelector('{sel} .hoverlayer .hovertext .nums')"
        ".querySelectorAll('tspan.line')]"
        ".map(t => t.textContent).join('\\n')"
    )


@pytest.fixture
def india(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, timezone_id="Asia/Kolkata")
    p = context.new_page()
    yield p
    context.close()


def test_one_x_axis_linked_zoom_and_wall_time_in_hover(sqlite_server, india):
    token, job_id, rows = _seed(sqlite_server)
    login(india, sqlite_server, token)
    india.goto(f"{sqlite_server.url}/jobs/{job_id}")
    _drawn(india)

    # Step mode (the default): HBM, sampled by time, is drawn at the steps those times fell on.
    assert india.evaluate(f'() => document.querySelector("{HBM}")._fullLayout.xaxis.type') == "linear"
    hbm_x = india.evaluate(f'() => document.querySelector("{HBM}").data[0].x')
    assert hbm_x[0] == pytest.approx(1, abs=0.5) and hbm_x[-1] == pytest.approx(291, abs=1)

    # Zoom the step-time chart: input wait, HBM and the loss chart follow to the same window.
    india.evaluate(f'() => Plotly.relayout(document.querySelector("{STEP}"), {{"xaxis.range": [100, 150]}})')
    for sel in (WAIT, HBM, LOSS):
        india.wait_for_function(
            f'() => String(document.querySelector("{sel}")._fullLayout.xaxis.range) === "100,150"'
        )
    # Double-click (autorange) on another chart resets them all.
    india.evaluate(f'() => Plotly.relayout(document.querySelector("{LOSS}"), {{"xaxis.autorange": true}})')
    for sel in (STEP, WAIT, HBM):
        india.wait_for_function(f'() => document.querySelector("{sel}")._fullLayout.xaxis.autorange === true')
        assert _xrange(india, sel)[1] > 250

    # Hover the step-time chart: its hover names the step and the step's local wall time, and
    # the other charts show their own hover at the same x.
    india.locator(STEP).scroll_into_view_if_needed()
    box = india.locator(f"{STEP} .nsewdrag").first.bounding_box()
    india.mouse.move(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
    india.wait_for_selector(f"{STEP} .hoverlayer .hovertext")
    text = _hover(india, STEP)
    step = int(re.search(r"step (\d+)\n", text).group(1))
    wall = next(r for r in rows if r[0] == step)[1]
    local = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(wall + 5.5 * 3600))
    assert f"{local} +05:30" in text, text
    for sel in (WAIT, HBM, LOSS):
        india.wait_for_selector(f"{sel} .hoverlayer .hovertext")
    assert f"step {step}\n" in _hover(india, WAIT)

    # Time mode: every chart on a local date axis; the step charts' hover still names the step.
    india.check("#x-mode input[value=time]")
    for sel in (STEP, WAIT, HBM, LOSS):
        india.wait_for_function(f'() => document.querySelector("{sel}")._fullLayout.xaxis.type === "date"')
    first = india.evaluate(f'() => document.querySelector("{STEP}").data[0].x[0]')
    assert first.startswith(time.strftime("%Y-%m-%d %H:%M", time.gmtime(rows[0][1] + 5.5 * 3600)))
    title = india.evaluate(f'() => document.querySelector("{HBM}")._fullLayout.xaxis.title.text')
    assert title == "time (local, UTC+05:30)"

    # The choice is remembered, and zoom in time mode stays linked.
    india.reload()
    _drawn(india)
    assert india.evaluate(f'() => document.querySelector("{LOSS}")._fullLayout.xaxis.type') == "date"
    lo, hi = india.evaluate(f'() => document.querySelector("{HBM}").data[0].x.slice(3, 5)')
    hbm = f'document.querySelector("{HBM}")'
    india.evaluate(f'() => Plotly.relayout({hbm}, {{"xaxis.range": ["{lo}", "{hi}"]}})')
    india.wait_for_function(
        f'() => String(document.querySelector("{STEP}")._fullLayout.xaxis.range) === "{lo},{hi}"'
    )


@pytest.mark.parametrize(("width", "scheme"), [(1280, "light"), (390, "dark")])
def test_no_chart_overflows_the_page(sqlite_server, browser, width, scheme):
    token, job_id, _ = _seed(sqlite_server)
    context = browser.new_context(viewport={"width": width, "height": 900}, color_scheme=scheme)
    try:
        p = context.new_page()
        login(p, sqlite_server, token)
        p.goto(f"{sqlite_server.url}/jobs/{job_id}")
        _drawn(p)
        assert p.evaluate("() => document.documentElement.scrollWidth") <= width
        right = p.evaluate(
            "() => Math.max(...[...document.querySelectorAll('.chart .main-svg')]"
            ".map(s => s.getBoundingClientRect().right))"
        )
        assert right <= width
        # The log axis labels its minor ticks in full ("0.2", "0.5"), not as bare digits ("2", "5").
        ticks = p.eval_on_selector_all(f"{STEP} .ytick text", "els => els.map(e => e.textContent)")
        assert "0.5" in ticks or "0.2" in ticks, ticks
        # The charts take the page's colours: transparent backgrounds, the text colour of the page.
        layout = p.evaluate(
            f'() => {{ const l = document.querySelector("{STEP}")._fullLayout;'
            " return [l.paper_bgcolor, l.plot_bgcolor, l.font.color,"
            " getComputedStyle(document.body).color]; }"
        )
        assert layout[0] == layout[1] == "rgba(0,0,0,0)" and layout[2] == layout[3]
        assert layout[2] == ("rgb(230, 237, 243)" if scheme == "dark" else "rgb(29, 35, 39)")
    finally:
        context.close()


def test_runs_of_one_job_are_told_apart_by_name_commit_and_config(sqlite_server, page):
    token = token_for(sqlite_server, "named")
    t0 = time.time() - 600
    labels = {
        "run-a": {
            "run_name": "lr 3e-4",
            "commit": "0a1b2c3d4e5f",
            "dirty": False,
            "config_digest": "aaaa1111bbbb",
        },
        "run-b": {
            "run_name": "lr 1e-3",
            "commit": "9f8e7d6c5b4a",
            "dirty": True,
            "config_digest": "cccc2222dddd",
        },
    }
    ids = {}
    with api(sqlite_server.url, token) as c:
        for run_id, attrs in labels.items():
            body = {"stream": run_id, "seq": 0, "steps": seed.steps(20, t0)}
            body["run"] = {
                "run_id": run_id,
                "job": "same-name",
                "host": 0,
                "attrs": {**attrs, "hostname": "h"},
            }
            r = c.post("/api/v1/ingest", json=body)
            assert r.status_code == 200, r.text
            ids[run_id] = r.json()["job_id"]
    login(page, sqlite_server, token)
    rows = page.locator("#jobs-table tbody tr")
    assert rows.count() == 2
    text = page.locator("#jobs-table").inner_text()
    assert "lr 3e-4" in text and "0a1b2c3d" in text and "lr 1e-3" in text and "9f8e7d6c+dirty" in text
    assert "cfg aaaa1111" in text

    page.goto(f"{sqlite_server.url}/jobs/{ids['run-b']}")
    h1 = page.locator("h1")
    assert "lr 1e-3" in h1.inner_text() and "9f8e7d6c+dirty" in h1.inner_text()
    assert "uncommitted" in page.locator("h1 code.commit").get_attribute("title")
