"""The goodput pieces in Chromium: the comparison page of two runs, the job page's breakdown, and
the overview's goodput bar."""

from __future__ import annotations

import time

from tests.conftest import make_token
from tests.helpers import api, wait_until


def _run(server, token, tmp_path, name, step_s, batch):
    from tpuwatch.monitor import Monitor

    mon = Monitor(name, server=server.url, token=token, spool_dir=tmp_path / name, send=True, peak_flops=1e9)
    mon.model_info(flops_per_step=1e6, global_batch_size=batch, replicas=1)
    for i in range(40):
        with mon.input_wait():
            time.sleep(0.002)
        with mon.step():
            time.sleep(0.05 if i == 0 else step_s)
    with mon.saving(40):
        time.sleep(0.05)
    mon.close()


def test_compare_two_runs_side_by_side_and_see_goodput_on_the_job_page(sqlite_server, page, tmp_path):
    from tpuwatch.server.db import make_engine, make_sessionmaker

    engine = make_engine(sqlite_server.settings.database_url)
    token = make_token(make_sessionmaker(engine))
    engine.dispose()
    _run(sqlite_server, token, tmp_path, "bert-b32", 0.004, 32)
    _run(sqlite_server, token, tmp_path, "bert-b64", 0.008, 64)
    with api(sqlite_server.url, token) as c:
        jobs = wait_until(
            lambda: (lambda js: js if len(js) == 2 else None)(
                [j for j in c.get("/api/v1/jobs").json()["jobs"] if j["steps"] == 40]
            )
        )
        a, b = sorted(j["id"] for j in jobs)
        # The alert loop stores each finished job's overview bar (reads never write it).
        wait_until(lambda: c.get("/fragments/jobs").text.count('class="gp-bar"') == 2, timeout=30)
    page.goto(sqlite_server.url + "/login")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_selector("#jobs-table tbody tr")
    assert page.locator("#jobs-table .gp-bar").count() == 2
    assert page.locator("#jobs-table .gp-bar .gp-productive").count() == 2

    page.goto(f"{sqlite_server.url}/jobs/{a}")
    page.wait_for_function("() => document.querySelector('#chart-goodput').data?.length >= 2")
    assert "Where the time went" in page.locator("#goodput").inner_text()
    assert page.locator("#chart-mfu").count() == 1
    assert page.locator("#goodput tr.part-checkpoint").count() == 1

    page.goto(f"{sqlite_server.url}/compare?jobs={a}&jobs={b}")
    page.wait_for_function("() => document.querySelector('#chart-compare-steps').data?.length === 2")
    page.wait_for_function("() => document.querySelector('#chart-compare-goodput').data?.length >= 2")
    header = page.locator("#compare-table thead").inner_text()
    assert "bert-b32" in header and "bert-b64" in header
    assert page.locator("tr.differs[data-attr=global_batch_size]").count() == 1
    assert page.locator("tr.differs[data-attr=replicas]").count() == 0
    assert page.locator("#chart-compare-steps .trace.boxes").count() == 2
    assert page.dialogs == []

    page.goto(f"{sqlite_server.url}/compare?jobs={a}")  # one run: a clear error, not a crash
    assert "compare 2 to 4" in page.content()
