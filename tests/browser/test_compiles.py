"""The job page's compilations in Chromium: a real JAX run fed five input shapes shows its training
step compiled five times, marked as recompiling, drawn over the run, and the card naming it."""

from __future__ import annotations

from tests.compiles.test_recompilation import FIVE_SHAPES, _train
from tests.conftest import make_token
from tests.helpers import api, wait_for_job


def test_the_job_page_shows_compilations_per_function_and_over_the_run(sqlite_server, page, tmp_path):
    from tpuwatch.server.db import make_engine, make_sessionmaker

    engine = make_engine(sqlite_server.settings.database_url)
    token = make_token(make_sessionmaker(engine))
    engine.dispose()
    _train(sqlite_server.url, token, tmp_path, "shapes", FIVE_SHAPES)
    with api(sqlite_server.url, token) as c:
        job = wait_for_job(c, "shapes", "succeeded", timeout=30)
    page.goto(sqlite_server.url + "/login")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.goto(f"{sqlite_server.url}/jobs/{job['id']}")
    page.wait_for_function("() => document.querySelector('#chart-compiles').data?.length === 1")
    assert page.locator("#chart-compiles .point").count() == 5
    row = page.locator("#compiles tr[data-function=train_step]")
    assert row.get_attribute("class") == "recompiling"
    assert row.locator("td.num").first.inner_text() == "5"
    assert page.locator("#compile-count").inner_text() == "5"
    assert "train_step recompiled 4 times" in page.locator("#perf-cards").inner_text()
    assert page.dialogs == []
