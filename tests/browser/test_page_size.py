"""Pages that stay small: the job page of a 1,000,000-step live run transfers under 1.5 MB cold in
Chromium (plotly.js included, every response compressed), and its HTML is the size of a
10,000-step run's (charts come as JSON, the timeline folds, the log shows a bounded tail). The
transferred bytes are Chromium's own count (``encodedDataLength``) with its cache off. ~20 s
(storing the runs takes ~3 s, tests/jobs/long_run.py), and once per machine ~15 s more to
brotli-compress plotly.js.
"""

from __future__ import annotations

import httpx

from tests.browser.session import token_for
from tests.helpers import wait_until
from tests.jobs import long_run

BUDGET = 1_500_000  # bytes on the wire for the whole page, cold


def _compressed_plotly_ready(url: str) -> bool:
    r = httpx.head(url + "/static/vendor/plotly.min.js", headers={"Accept-Encoding": "br, gzip"})
    return r.headers.get("content-encoding") == "br"


def _transfer(page, url: str) -> tuple[int, dict[str, int]]:
    """Bytes on the wire to load ``url`` and draw every chart, with Chromium's cache off."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    urls: dict[str, str] = {}
    sizes: dict[str, int] = {}
    cdp.on("Network.requestWillBeSent", lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on(
        "Network.loadingFinished",
        lambda e: sizes.__setitem__(urls.get(e["requestId"], e["requestId"]), int(e["encodedDataLength"])),
    )
    page.goto(url)
    page.wait_for_function(
        """() => [...document.querySelectorAll('.chart')].every(c => c.dataset.drawn === '1' || c.hidden)
             && document.querySelectorAll('.training-chart[data-drawn="1"]').length > 0"""
    )
    page.wait_for_load_state("networkidle")
    return sum(sizes.values()), sizes


def test_a_million_step_job_page_is_small_cold_and_its_html_does_not_grow(sqlite_server, page):
    token = token_for(sqlite_server, "long")
    db = sqlite_server.settings.database_url
    short = long_run.seed(db, token, 10_000, "short")
    long = long_run.seed(db, token, 1_000_000, "long")
    wait_until(lambda: _compressed_plotly_ready(sqlite_server.url), timeout=120)

    page.goto(sqlite_server.url + "/login")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_url(sqlite_server.url + "/")
    total, sizes = _transfer(page, f"{sqlite_server.url}/jobs/{long}")
    shown = ", ".join(
        f"{u.split('/', 3)[-1]}={n}" for u, n in sorted(sizes.items(), key=lambda kv: -kv[1])[:8]
    )
    print(f"\njob_page_1m_cold_transfer_bytes={total} ({shown})")
    assert total < BUDGET, sizes
    assert page.locator("#fig-steps").get_attribute("data-value") == "1000000"

    html = {}
    for job_id in (short, long):
        r = page.request.get(f"{sqlite_server.url}/jobs/{job_id}")
        assert r.status == 200
        html[job_id] = len(r.body())
    print(f"job_page_html_bytes_10k={html[short]} job_page_html_bytes_1m={html[long]}")
    assert abs(html[long] - html[short]) <= 0.01 * html[short], html  # digits differ, nothing grows
    assert page.dialogs == []
