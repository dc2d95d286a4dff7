"""A long run's lines read as buckets by the database (series/buckets.py): the loss and HBM of a
run with 30,000 samples per line still come back at most ``points`` points, with their spike,
their NaN and their ends where they were; and the job's clock maps its steps to their times."""

from __future__ import annotations

import time

import pytest

from tests.conftest import make_token
from tests.helpers import api
from tests.jobs.seed import post
from tpuwatch.server.db import transaction
from tpuwatch.server.metrics.service import device_series
from tpuwatch.server.metrics.training import training_series
from tpuwatch.server.models import Job
from tpuwatch.server.series import buckets
from tpuwatch.server.series.clock import step_clock

N = 30_000


def _seed(live_server, sessions):
    token = make_token(sessions, project="long")
    t0 = time.time() - N * 0.1 - 60
    steps = [[i, t0 + 0.1 * i, 0.1, 0.0] for i in range(1, N + 1)]
    loss = [[t0 + 0.1 * i, "loss", None, 2.0 - i / N, i] for i in range(1, N + 1)]
    loss[12_345][3] = 50.0  # a spike at step 12,346
    loss[20_000][3] = None  # NaN at step 20,001 (NaN is sent as null)
    hbm = [
        [t0 + 0.1 * i, "tpu.hbm.used_bytes", 0, float(2**30 + (i == 7_777) * 2**33)] for i in range(1, N + 1)
    ]
    hbm += [[t0 + 0.1, "tpu.hbm.total_bytes", 0, float(16 * 2**30)]]
    with api(live_server.url, token) as c:
        job_id = None
        for k in range(0, N, 10_000):
            part = dict(steps=steps[k : k + 10_000], metrics=loss[k : k + 10_000] + hbm[k : k + 10_000])
            job_id = post(c, "long-1", "long", 0, k, **part)["job_id"]
        post(c, "long-1", "long", 0, N, metrics=hbm[-1:])
    return job_id, t0


def test_long_lines_come_back_bounded_with_spike_nan_and_ends(live_server, sessions):
    assert N > buckets.RAW_LIMIT
    job_id, t0 = _seed(live_server, sessions)
    with transaction(sessions) as s:
        data = training_series(s, job_id, points=1000)
        device = device_series(s, job_id, points=1000)
        clock = step_clock(s, s.get(Job, job_id))
    (chart,) = data.charts
    (ln,) = chart.lines
    assert chart.x_axis == "step" and len(ln.x) <= 1000
    # The spike is kept, placed within one bucket (1/2000 of the run) of where it was.
    width = N / buckets.BUCKETS
    assert max(ln.y) == 50.0 and abs(ln.x[ln.y.index(50.0)] - 12_346) <= width
    assert ln.nonfinite == [20_001.0]
    assert ln.x[0] == 1 and ln.x[-1] == N
    assert ln.y[-1] == pytest.approx(1.0, abs=0.01)
    assert ln.x == sorted(ln.x)

    (used,) = device["hbm"]
    assert len(used.x) <= 1000 and device["hbm_unit"] == "% of HBM"
    assert max(used.y) == pytest.approx(9 / 16 * 100)  # the 1 GiB + 8 GiB spike over 16 GiB
    assert abs(used.x[used.y.index(max(used.y))] - (t0 + 777.7)) <= 0.1 * width

    # The clock: from the job's start through its steps, at most 1,000 pairs, rising.
    assert 10 < len(clock) <= 1001
    steps_, times = [p[0] for p in clock], [p[1] for p in clock]
    assert steps_ == sorted(steps_) and times == sorted(times)
    assert steps_[-1] == N and times[-1] == pytest.approx(t0 + 0.1 * N, abs=0.01)


def test_short_lines_stay_raw(live_server, sessions):
    token = make_token(sessions, project="short")
    t0 = time.time() - 100
    metrics = [[t0 + i, "loss", None, 1.0 / i, i] for i in range(1, 41)]
    with api(live_server.url, token) as c:
        job_id = post(c, "short-1", "short", 0, 0, steps=[[1, t0 + 1, 0.1, 0.0]], metrics=metrics)["job_id"]
    with transaction(sessions) as s:
        (chart,) = training_series(s, job_id).charts
    assert chart.lines[0].x == list(range(1, 41)) and chart.lines[0].y[0] == 1.0


def test_a_text_search_reads_the_newest_lines_and_says_so(live_server, sessions, monkeypatch):
    from tpuwatch.server.logs import service as logs

    monkeypatch.setattr(logs, "SEARCH_WINDOW", 100)
    token = make_token(sessions, project="search")
    t0 = time.time() - 100
    lines = [[t0, i, "stdout", f"line {i} {'needle' if i in (5, 250) else 'hay'}"] for i in range(1, 301)]
    lines[9][3] = "W1123 12:00:00.0 x.cc:1] an old warning"
    with api(live_server.url, token) as c:
        job_id = post(c, "search-1", "search", 0, 0, logs=lines)["job_id"]
        found = c.get(f"/api/v1/jobs/{job_id}/log", params={"q": "needle"}).json()
        assert [ln["line"] for ln in found["lines"]] == [250] and found["searched_lines"] == 100
        html = c.get(f"/fragments/jobs/{job_id}/log", params={"q": "needle"}).text
        assert "searched the newest 100 lines" in html
        assert "searched the newest" not in c.get(f"/fragments/jobs/{job_id}/log?q=needle&after=1").text
        # The level filters read the whole log (through their index): the old warning is found.
        warn = c.get(f"/api/v1/jobs/{job_id}/log", params={"level": "warning"}).json()
        assert [ln["line"] for ln in warn["lines"]] == [10] and warn["searched_lines"] is None
