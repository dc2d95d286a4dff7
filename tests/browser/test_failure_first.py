"""A stopped job's page opens on what went wrong, in Chromium at 1280 x 800.

- A real JAX job that dies of a shape error under `tpuwatch agent run`: the header names the error,
  the card is above the fold, the log opens on the error line, and the card's link, its evidence
  and the post-mortem name one line number (the line's number in the host's live log). ~15 s.
- A job whose worker thread prints an exception and whose main thread then waits forever: the
  exception makes a card although no line follows it, and the stall shows the captured stacks with
  the program's main thread (in ``queue.get``) first, not tpuwatch's own writer thread. ~20 s.
"""

from __future__ import annotations

import re
import shutil
import signal

import pytest

from tests.agent.test_sidecar import sidecar
from tests.browser.session import login, token_for
from tests.conftest import start_server
from tests.helpers import api, wait_for_job, wait_until
from tpuwatch.server.settings import Settings

SHAPE_ERROR = """
import jax, jax.numpy as jnp
for i in range(1, 31):
    print(f"step {i} loss {1.0 / i:.4f}", flush=True)
features = jnp.ones((8, 3))
weights = jnp.ones((4, 16))
jax.jit(lambda a, b: a @ b)(features, weights)  # 3 features into a layer of width 4
"""

STALL = """
import queue, threading, time
import tpuwatch

mon = tpuwatch.init()
for n in range(1, 31):
    with mon.step(n):
        time.sleep(0.02)
    print(f"step {n}", flush=True)

def worker():
    raise RuntimeError("worker died: the prefetch thread lost its connection")

threading.Thread(target=worker).start()
queue.Queue().get()  # the main thread waits for a batch the dead worker will never send
"""


@pytest.fixture
def small_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    yield context.new_page()
    context.close()


def test_a_failed_job_opens_on_its_error_and_names_one_line_everywhere(
    sqlite_server, small_page, tmp_path, spool_dir
):
    page = small_page
    token = token_for(sqlite_server, "shapes")
    proc = sidecar(sqlite_server.url, token, "shape-error", SHAPE_ERROR, tmp_path, "--no-tpu-metrics")
    _, err = proc.communicate(timeout=180)
    assert proc.returncode != 0, err.decode()[-2000:]
    with api(sqlite_server.url, token) as c:
        job = wait_for_job(c, "shape-error", "failed")
    login(page, sqlite_server, token)
    page.goto(f"{sqlite_server.url}/jobs/{job['id']}")
    page.wait_for_function("() => document.querySelector('#job-log').dataset.ready === '1'")

    title = page.locator("#failure-title")
    card = page.locator("#failure .triage-card").first
    assert title.is_visible() and card.locator(".card-title").inner_text() in title.inner_text()
    for box in (title.bounding_box(), card.locator("pre.evidence").bounding_box()):
        assert box["y"] + box["height"] <= 800, box  # above the fold, no scrolling
    assert page.evaluate("() => window.scrollY") == 0

    # The log opened on the error line, inside its own box.
    hit = page.locator("#job-log .ln.hit")
    assert hit.count() == 1
    number = int(hit.locator(".no").inner_text().split(":")[1])
    top, bottom, shown_from, shown_to = page.evaluate(
        """() => { const pre = document.getElementById('job-log'), hit = pre.querySelector('.ln.hit');
          const top = hit.offsetTop, seen = pre.scrollTop;
          return [top, top + hit.offsetHeight, seen, seen + pre.clientHeight]; }"""
    )
    assert shown_from <= top and bottom <= shown_to, (top, bottom, shown_from, shown_to)
    evidence = card.locator("pre.evidence").inner_text().strip().splitlines()[0]
    assert evidence.strip() in hit.inner_text()
    link = card.locator("a.log-link").inner_text()
    label = card.locator(".evidence-label").inner_text()
    assert re.search(rf"\bLine {number}\b", link), link
    assert f"(line {number})" in label, label

    page.goto(f"{sqlite_server.url}/jobs/{job['id']}/postmortem")
    pm_hit = page.locator("pre.pm-log .ln.hit .no").inner_text()
    assert int(pm_hit) == number


def test_an_exception_before_a_stall_makes_a_card_and_the_main_thread_leads_the_stacks(
    browser, small_page, tmp_path, sqlite_template, spool_dir
):
    db = tmp_path / "stall.db"
    shutil.copy(sqlite_template, db)
    settings = Settings(
        db=f"sqlite:///{db}",
        data_dir=tmp_path / "data",
        secret_key="browser-tests",
        alert_eval_seconds=0.3,
        stall_floor_seconds=2.0,
    )
    server = start_server(settings)
    page = small_page
    proc = None
    try:
        token = token_for(server, "stalls")
        proc = sidecar(
            server.url, token, "stalled-worker", STALL, tmp_path, "--no-tpu-metrics", "--stall-after", "2"
        )
        with api(server.url, token) as c:
            job = wait_for_job(c, "stalled-worker", "stalled", timeout=60)
            wait_until(
                lambda: c.get(f"/api/v1/jobs/{job['id']}/events", params={"kind": "stacks"}).json()["events"],
                timeout=30,
            )

            def died():
                events = c.get(f"/api/v1/jobs/{job['id']}/events", params={"kind": "error"}).json()["events"]
                return [e for e in events if "worker died" in e["message"]]

            assert wait_until(died, timeout=30)  # no next line came: 2 s of quiet end its traceback
        login(page, server, token)
        page.goto(f"{server.url}/jobs/{job['id']}")
        assert "worker died" in page.locator("#failure #error-cards").inner_text()
        assert "No errors" not in page.locator("#failure").inner_text()
        main = page.locator("#main-stack").inner_text()
        assert "get" in main and "<module>" in main, main
        assert "(main thread)" in page.locator("#stacks .thread-name").first.inner_text()
        assert "tpuwatch" not in main  # the writer thread is listed, last, as tpuwatch's own
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=30)
        server.stop()
