"""The post-mortem of a slice draws what the job page draws: a heatmap and bands over hosts for the
last steps, and HBM as bands over chips, not a line per host or per chip (4,096 of them at 1,024
hosts made a 4 MB page). A small job keeps its lines."""

from __future__ import annotations

import json
import re

from tests.conftest import start_server
from tests.helpers import api
from tests.slice.seed import slice_job, token_and_principal


def _figures(html: str) -> dict[str, dict]:
    found = re.findall(r'id="chart-([a-z_]+)" data-figure="([^"]*)"', html)
    unescape = lambda s: s.replace("&#34;", '"').replace("&quot;", '"').replace("&amp;", "&")  # noqa: E731
    return {name: json.loads(unescape(fig)) for name, fig in found}


def test_a_slice_post_mortem_draws_bands_and_a_heatmap_and_a_small_job_its_lines(settings, sessions):
    token, who = token_and_principal(sessions)
    big = slice_job(sessions, who, hosts=40, steps=40, chips=2, slow={33: (2.0, 1.2)}, run_id="pod")
    small = slice_job(sessions, who, hosts=3, steps=40, chips=2, slow={}, run_id="small")
    server = start_server(settings)
    try:
        with api(server.url, token) as c:
            data = c.get(f"/api/v1/jobs/{big}/postmortem").json()
            page = c.get(f"/jobs/{big}/postmortem").text
            small_page = c.get(f"/jobs/{small}/postmortem").text
    finally:
        server.stop()
    assert data["last_steps_series"]["series"] == []
    assert data["last_steps_slice"]["hosts"] == list(range(40))
    assert [s["metric"] for s in data["hbm"]["hbm"]] == ["p50 over chips", "max over chips"]
    # 8..15 GiB of 16 over the chips: the fullest chip is at 15/16 of its HBM.
    assert max(data["hbm"]["hbm"][1]["y"]) == 93.75 and data["hbm"]["hbm"][0]["y"][0] < 93.75

    figures = _figures(page)
    assert [t["name"] for t in figures["last_steps"]["data"]] == [
        "p50 over hosts",
        "p90 over hosts",
        "max over hosts",
    ]
    heat = figures["last_steps_heatmap"]["data"]
    assert len(heat) == 1 and heat[0]["type"] == "heatmap" and len(heat[0]["y"]) == 40
    assert [t["name"] for t in figures["hbm"]["data"]] == ["p50 over chips", "max over chips"]

    small_figures = _figures(small_page)
    assert "last_steps_heatmap" not in small_figures
    assert [t["name"] for t in small_figures["last_steps"]["data"]] == ["host 0", "host 1", "host 2"]
    assert len(small_figures["hbm"]["data"]) == 6  # 3 hosts x 2 chips: a line each
