"""A 1,024-host job in Chromium: heatmaps, percentile bands, chip histograms and the hosts table
paged and sorted on the server. Seeded through the ingest service, as 1,024 agents' batches."""

from __future__ import annotations

import os
from pathlib import Path

from tests.slice.seed import slice_job, token_and_principal
from tpuwatch.server.db import make_engine, make_sessionmaker


def test_a_1024_host_job_draws_heatmaps_bands_and_a_paged_host_table(sqlite_server, page):
    engine = make_engine(sqlite_server.settings.database_url)
    token, who = token_and_principal(make_sessionmaker(engine), project="pod")
    job_id = slice_job(make_sessionmaker(engine), who, hosts=1024, steps=48, chips=4)
    engine.dispose()
    page.goto(sqlite_server.url + "/login")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_selector("#jobs-table")
    page.goto(f"{sqlite_server.url}/jobs/{job_id}")
    page.wait_for_function("() => document.querySelector('#chart-slice_step_time').data?.length === 1")
    heat = page.evaluate(
        "() => { const t = document.querySelector('#chart-slice_step_time').data[0];"
        " return [t.type, t.y.length, t.x.length, t.z[700][1]]; }"
    )
    assert heat == ["heatmap", 1024, 3, 2.0]
    assert page.locator(
        "#chart-slice_step_time .hm image, #chart-slice_step_time .heatmaplayer image"
    ).count()
    assert page.evaluate("() => document.querySelector('#chart-slice_bands').data.map(t => t.name)") == [
        "p50 over hosts",
        "p90 over hosts",
        "max over hosts",
    ]
    assert page.evaluate("() => document.querySelector('#chart-slice_hbm').data[0].x.length") == 4096
    assert page.evaluate("() => document.querySelector('#chart-slice_duty').data[0].type") == "histogram"
    assert page.locator("#chart-step_time").count() == 0  # no 1,024 lines

    rows = page.locator("#slice-hosts tbody tr")
    assert rows.count() == 25
    assert rows.nth(0).locator("td").first.inner_text() == "700"
    assert "input" in rows.nth(0).inner_text() and "compute" in rows.nth(1).inner_text()
    assert "Hosts 1–25 of 1024" in page.locator("#slice-hosts .pager").inner_text()
    assert "slowest hosts: 700" in page.locator("#which-host").inner_text()

    page.click("#slice-hosts a[rel=next]")
    page.wait_for_selector("#slice-hosts[data-page='2']")
    assert "Hosts 26–50 of 1024" in page.locator("#slice-hosts .pager").inner_text()
    page.click("#slice-hosts th a:has-text('Host')")  # sort by host number
    page.wait_for_selector("#slice-hosts[data-sort='host_index']")
    first = page.locator("#slice-hosts tbody tr").nth(0).locator("td").first.inner_text()
    assert first == "1023"  # a new sort starts descending, on page 1
    assert page.url.endswith(f"/jobs/{job_id}")  # paged in place
    if os.environ.get("TPUWATCH_SCREENSHOT_DIR"):
        page.screenshot(path=str(Path(os.environ["TPUWATCH_SCREENSHOT_DIR"]) / "slice.png"), full_page=True)
