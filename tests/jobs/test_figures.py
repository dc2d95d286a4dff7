"""The derived figures (jobs/figures.py) against hand-computed jobs, one test per figure the
pages once got wrong: an input-bound share over 100% (and 77% in the table against 173% on the
card), steps/s of a stalled job, a padding card for a Dense(1) output, a round-trips card quoting a
step time other than the page's p50."""

from __future__ import annotations

import re
import time

import pytest

from tests.conftest import make_token
from tests.helpers import api
from tests.jobs.seed import post
from tpuwatch.server.triage.perf import perf_cards


def _rows(first: int, n: int, t0: float, duration: float, wait: float) -> list[list]:
    rows, t = [], t0
    for i in range(first, first + n):
        t += duration + wait
        rows.append([i, t, duration, wait])
    return rows


def _views(c, job_id: int) -> tuple[dict, dict]:
    page = c.get(f"/jobs/{job_id}", params={"format": "json"}).json()
    row = next(j for j in c.get("/api/v1/overview").json()["jobs"] if j["id"] == job_id)
    return page, row


def test_input_share_counts_the_wait_on_top_of_the_step_the_same_in_table_page_and_card(
    live_server, sessions
):
    token = make_token(sessions)
    t0 = time.time() - 120
    # Step 1 compiles for 30 s; then 300 steps of 0.1 s compute after 0.2 s waiting for data: the
    # job spends 2/3 of its time on input (the old figures: 200% on the card, 103% in the table).
    rows = [[1, t0 + 30, 30.0, 0.0], *_rows(2, 300, t0 + 30, 0.1, 0.2)]
    end = [[rows[-1][1], "exit", "", {"code": 0, "signal": None}]]  # ended: no quiet time counts
    with api(live_server.url, token) as c:
        job_id = post(c, "in-1", "input-heavy", 0, 0, steps=rows, events=end)["job_id"]
        page, row = _views(c, job_id)
    card = next(c for c in page["perf_cards"] if c["subtype"] == "input_bound")
    assert page["figures"]["input_share"] == pytest.approx(2 / 3)
    assert row["input_share"] == pytest.approx(2 / 3)
    assert card["facts"]["input_wait_ratio"] == pytest.approx(2 / 3, abs=1e-4)
    assert card["title"] == "Input-bound: 67% of step time waiting for data"
    # 300 steps over 90 s of step and wait time: 3.33 steps/s, the compile step left out.
    assert row["steps_per_s"] == pytest.approx(300 / 90) == page["figures"]["steps_per_s"]
    assert page["figures"]["window_steps"] == 300


def test_a_stalled_job_makes_no_steps_per_second(live_server, sessions):
    token = make_token(sessions)
    t0 = time.time() - 3 * 3600
    rows = _rows(1, 200, t0, 0.00155, 0.0)  # fast steps (1/p50 = 645/s), then three hours of nothing
    with api(live_server.url, token) as c:
        job_id = post(c, "stall-1", "stalled-fast", 0, 0, steps=rows)["job_id"]
        post(c, "stall-1", "stalled-fast", 0, 1)  # a heartbeat: the agent lives, the steps stopped
        page, row = _views(c, job_id)
    # Judged stalled (the alert loop's verdict) it makes none; before that the three quiet hours
    # count: 200 steps in about 10,800 s.
    for status, rate in (
        (row["status"], row["steps_per_s"]),
        (page["job"]["status"], page["figures"]["steps_per_s"]),
    ):
        assert status in ("running", "stalled")
        assert rate == (0.0 if status == "stalled" else pytest.approx(200 / 10_800, rel=0.05))


def test_no_padding_card_for_an_output_layer_or_a_tiny_model():
    # A regression head is Dense(1) because the task has one target: widening it is no advice.
    assert perf_cards({"layer_widths": [256, 512, 1]}) == []
    # A tiny model cannot fill the MXU whatever its widths.
    assert perf_cards({"layer_widths": [64, 32, 1], "parameters": 4_000}) == []
    card = perf_cards({"layer_widths": [300, 1], "parameters": 5_000_000})[0]
    assert card.subtype == "layer_padding" and card.facts["widths"] == [300]


def test_round_trips_card_quotes_the_pages_step_time_p50(live_server, sessions):
    token = make_token(sessions)
    t0 = time.time() - 900
    info = [[t0, "model_info", "", {"steps_per_execution": 1}]]
    with api(live_server.url, token) as c:
        # 300 steps of 79 ms, then a last small batch of 28 ms steps: the p50 of the window is
        # 79 ms; the old page showed the last batch's 28 ms while the card said 79.
        first = [[1, t0 + 20, 20.0, 0.0], *_rows(2, 300, t0 + 20, 0.079, 0.0)]
        job_id = post(c, "rt-1", "round-trips", 0, 0, steps=first, events=info)["job_id"]
        post(c, "rt-1", "round-trips", 0, 1, steps=_rows(302, 20, first[-1][1], 0.028, 0.0))
        page, _ = _views(c, job_id)
        html = c.get(f"/jobs/{job_id}").text
    card = next(c for c in page["perf_cards"] if c["subtype"] == "host_round_trips")
    assert page["figures"]["step_time_p50"] == pytest.approx(0.079)
    assert card["facts"]["median_step_s"] == page["figures"]["step_time_p50"]
    assert card["title"] == "One step per host call with 79 ms steps"
    assert re.search(r'id="fig-step-p50" data-value="0\.079[0-9]*">79.0 ms', html), html
