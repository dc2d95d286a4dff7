"""Every surface shows the same figure, and it is the job's truth: a property test per figure.

Hypothesis makes a job's series (step times, input waits, the model's FLOPs and the chips' peak);
the test stores it through the real ingest API of a live server and reads each figure back from
every surface that shows it: the job page's header (its JSON twin), the jobs API and its hosts
table, the overview, the post-mortem, the compare page and ``/metrics``. Each must equal the value
computed here from the series itself (step 1 compiles, and stays out of every figure).
"""

from __future__ import annotations

import statistics
import time
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from tests.conftest import make_token
from tests.helpers import api
from tests.jobs.seed import post

COMPILE_S = 30.0  # step 1: longer than any other step, as XLA compilation is


def _store(c, name: str, durations: list[float], waits: list[float], flops: float, peak: float) -> int:
    t = time.time() - 3600
    rows = [[1, t + COMPILE_S, COMPILE_S, 0.0]]
    t += COMPILE_S
    for i, (d, w) in enumerate(zip(durations, waits, strict=True), start=2):
        t += d + w
        rows.append([i, t, d, w])
    run_id = uuid.uuid4().hex[:12]
    run = {"run_id": run_id, "job": name, "host": 0, "attrs": {"peak_flops": peak}}
    events = [[rows[0][1], "model_info", "", {"flops_per_step": flops}], [t + 0.01, "exit", "", {"code": 0}]]
    r = c.post(
        "/api/v1/ingest", json={"stream": run_id, "seq": 0, "run": run, "steps": rows, "events": events}
    )
    assert r.status_code == 200, r.text
    return r.json()["job_id"]


def _metrics(c, job_id: int) -> dict[str, float]:
    out = {}
    for family in text_string_to_metric_families(c.get("/metrics").text):
        for s in family.samples:
            if s.labels.get("job_id") == str(job_id) and "status" not in s.labels:
                out[s.name] = s.value
    return out


def _surfaces(c, job_id: int, other: int) -> dict[str, dict]:
    """The four figures as each surface shows them."""
    keys = ("steps", "step_time_p50", "input_share", "mfu")
    page = c.get(f"/jobs/{job_id}", params={"format": "json"}).json()
    api_job = c.get(f"/api/v1/jobs/{job_id}").json()
    row = next(j for j in c.get("/api/v1/overview").json()["jobs"] if j["id"] == job_id)
    pm = c.get(f"/api/v1/jobs/{job_id}/postmortem").json()["this_run"]
    compared = c.get("/api/v1/compare", params={"jobs": [job_id, other]}).json()["runs"][0]["figures"]
    goodput = c.get(f"/api/v1/jobs/{job_id}/goodput").json()["mfu"]
    m = _metrics(c, job_id)
    return {
        "header": {k: page["figures"][k] for k in keys},
        "api": {k: api_job[k] for k in keys},
        "hosts table": {
            "step_time_p50": api_job["host_list"][0]["step_time_p50"],
            "steps": page["hosts"][0]["steps"],
        },
        "overview": {k: row[k] for k in keys},
        "post-mortem": {k: pm[k] for k in keys},
        "compare": {k: compared[k] for k in keys},
        "goodput": {"mfu": goodput["mfu"]},
        "/metrics": {
            "steps": m["tpuwatch_job_steps_total"],
            "step_time_p50": m["tpuwatch_job_step_time_seconds"],
            "input_share": m["tpuwatch_job_input_wait_ratio"],
            "mfu": m["tpuwatch_job_mfu_ratio"],
        },
    }


steps = st.integers(min_value=3, max_value=200)
seconds = st.floats(min_value=0.001, max_value=2.0, allow_nan=False)
waits = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.data(),
    flops=st.floats(min_value=1e6, max_value=1e15),
    peak=st.floats(min_value=1e9, max_value=1e15),
)
def test_every_surface_shows_the_series_own_figures(live_server, sessions, data, flops, peak):
    n = data.draw(steps)
    durations = data.draw(st.lists(seconds, min_size=n, max_size=n))
    wait = data.draw(st.lists(waits, min_size=n, max_size=n))
    wall = [d + w for d, w in zip(durations, wait, strict=True)]
    truth = {
        "steps": n + 1,  # the compile step is a training step too
        "step_time_p50": statistics.median(durations),
        "input_share": sum(wait) / sum(wall),
        "mfu": flops / (statistics.fmean(wall) * peak),
    }
    token = make_token(sessions, project=f"p{uuid.uuid4().hex[:8]}")
    with api(live_server.url, token) as c:
        job_id = _store(c, "figures", durations, wait, flops, peak)
        other = _store(c, "figures", durations, wait, flops, peak)
        shown = _surfaces(c, job_id, other)
    for surface, figures in shown.items():
        for key, value in figures.items():
            assert value == pytest.approx(truth[key], rel=1e-4), (surface, key, value, truth[key])


def test_a_two_host_job_counts_training_steps_not_steps_over_hosts(live_server, sessions):
    token = make_token(sessions)
    t0 = time.time() - 600
    with api(live_server.url, token) as c:
        for host in (0, 1):
            rows = [[i, t0 + i, 0.5, 0.1] for i in range(1, 101)]
            job_id = post(c, "two-hosts", "pair", host, 0, steps=rows)["job_id"]
        page = c.get(f"/jobs/{job_id}", params={"format": "json"}).json()
        row = next(j for j in c.get("/api/v1/overview").json()["jobs"] if j["id"] == job_id)
        html = c.get("/").text
        m = _metrics(c, job_id)
    assert page["job"]["steps"] == row["steps"] == page["figures"]["steps"] == 100
    assert page["job"]["host_steps"] == 200  # what was stored over both hosts, said apart
    assert m["tpuwatch_job_steps_total"] == 100
    assert [h["steps"] for h in page["hosts"]] == [100, 100]
    assert ">100<" in html.replace(" ", "") and ">200<" not in html.replace(" ", "")


def test_a_wait_too_small_for_the_rollups_real_columns_is_stored_as_zero(live_server, sessions):
    # Hypothesis found it: a wait of 2.9e-173 s rounds to 0 in PostgreSQL's REAL (float4), which
    # refuses it ("underflow"), and the whole batch was answered 422.
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        job_id = _store(c, "tiny-wait", [1.0, 1.0, 1.0], [0.0, 0.0, 2.896344681296851e-173], 1e6, 1e9)
        page = c.get(f"/jobs/{job_id}", params={"format": "json"}).json()
    assert page["figures"]["steps"] == 4
