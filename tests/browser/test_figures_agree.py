"""One number everywhere, and the job's own: a real JAX job under `tpuwatch agent run` with known
step times (a jitted step padded to 20 ms), input waits (10 ms in its data iterator), FLOPs (XLA's
cost analysis) and peak, timing itself with ``perf_counter``. The job page's header and hosts
table, the overview, the post-mortem and the compare page (read in Chromium), ``/metrics`` and the
API all show its step time p50, steps, input share and MFU within 2% of what the job measured.
About 25 s (JAX's start, 120 steps of 30 ms, a page each)."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.agent.test_sidecar import sidecar
from tests.browser.session import token_for
from tests.helpers import api, wait_for_job
from tests.jobs.seed import post

JOB = """
import json, statistics, time
import jax, jax.numpy as jnp
import tpuwatch
from tpuwatch.jax import step_flops

STEP_S, WAIT_S, N = 0.020, 0.010, 120

@jax.jit
def train_step(w, x):
    loss, g = jax.value_and_grad(lambda w: jnp.mean(jnp.tanh(x @ w) ** 2))(w)
    return w - 0.01 * g, loss

x = jax.random.normal(jax.random.key(0), (128, 256))
w = jax.random.normal(jax.random.key(1), (256, 256))
flops = step_flops(train_step, w, x)
peak = flops / ((STEP_S + WAIT_S) * 0.4)  # the chips' peak, as given: MFU near 40%
mon = tpuwatch.init(peak_flops=peak)
mon.model_info(flops_per_step=flops)
waits = []

def batches():
    while True:
        t = time.perf_counter()
        time.sleep(WAIT_S)
        waits.append(time.perf_counter() - t)
        yield x

steps = []
for n, batch in enumerate(mon.wrap(batches()), 1):
    t = time.perf_counter()
    with mon.step():
        w, loss = train_step(w, batch)
        loss.block_until_ready()
        time.sleep(max(0.0, STEP_S - (time.perf_counter() - t)))
    steps.append(time.perf_counter() - t)
    mon.log({"train/loss": loss}, step=n)
    if n == N:
        break
mon.close()
d, wt = steps[1:], waits[1:len(steps)]  # the first step compiles: no figure counts it
wall = [a + b for a, b in zip(d, wt)]
print(json.dumps({"steps": N, "step_time_p50": statistics.median(d), "input_share": sum(wt) / sum(wall),
                  "mfu": flops / (statistics.fmean(wall) * peak)}))
"""
KEYS = ("steps", "step_time_p50", "input_share", "mfu")
SUFFIX = dict(zip(KEYS, ("steps", "step-p50", "input-share", "mfu"), strict=True))  # of each cell's id


def _read(page, selector: str) -> dict[str, float]:
    """The four figures from the cells ``selector`` names (``{}`` for the figure's suffix)."""
    return {k: _value(page, selector.format(s)) for k, s in SUFFIX.items()}


def _value(page, selector: str) -> float:
    text = page.locator(selector).first.get_attribute("data-value")
    assert text not in (None, ""), selector
    return float(text)


def _metrics(server, token, job_id: int) -> dict[str, float]:
    text = httpx.get(server.url + "/metrics", headers={"Authorization": f"Bearer {token}"}).text
    names = {
        "tpuwatch_job_steps_total": "steps",
        "tpuwatch_job_step_time_seconds": "step_time_p50",
        "tpuwatch_job_input_wait_ratio": "input_share",
        "tpuwatch_job_mfu_ratio": "mfu",
    }
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.labels.get("job_id") == str(job_id) and s.name in names:
                out[names[s.name]] = s.value
    return out


def test_header_hosts_overview_postmortem_compare_metrics_and_api_agree_with_the_job(
    sqlite_server, page, tmp_path, spool_dir
):
    token = token_for(sqlite_server, "figures")
    proc = sidecar(sqlite_server.url, token, "jax-figures", JOB, tmp_path, "--no-tpu-metrics")
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err.decode()[-3000:]
    truth = json.loads(out.decode().strip().splitlines()[-1])
    with api(sqlite_server.url, token) as c:
        job = wait_for_job(c, "jax-figures", "succeeded")
        t0 = time.time() - 60
        other = post(c, "other", "other-run", 0, 0, steps=[[i, t0 + i, 0.05, 0.0] for i in range(1, 50)])
        api_job = c.get(f"/api/v1/jobs/{job['id']}").json()
    job_id = job["id"]

    shown: dict[str, dict[str, float]] = {"API": {k: api_job[k] for k in KEYS}}
    shown["/metrics"] = _metrics(sqlite_server, token, job_id)

    page.goto(sqlite_server.url + "/login")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_url(sqlite_server.url + "/")
    row = f"#jobs-table tr[data-job-id='{job_id}']"
    shown["overview"] = _read(page, row + " td.col-{}")
    page.goto(f"{sqlite_server.url}/jobs/{job_id}")
    shown["header"] = _read(page, "#fig-{}")
    shown["hosts table"] = {"steps": _value(page, ".host-steps"), "step_time_p50": _value(page, ".host-p50")}
    assert page.locator("#mfu").inner_text() == f"{api_job['mfu'] * 100:.1f}%"  # goodput's MFU: the same
    page.goto(f"{sqlite_server.url}/jobs/{job_id}/postmortem")
    shown["post-mortem"] = _read(page, "#pm-{}")

    page.goto(f"{sqlite_server.url}/compare?jobs={job_id}&jobs={other['job_id']}&jobs=&jobs=")
    shown["compare"] = {k: _value(page, f"#compare-table tr[data-row='{k}'] td") for k in KEYS}

    print(f"\ntruth {truth}")
    for surface, figures in shown.items():
        print(f"{surface}: {figures}")
        assert figures["steps"] == truth["steps"], (surface, figures)
        for key in ("step_time_p50", "input_share", "mfu"):
            if key in figures:
                assert figures[key] == pytest.approx(truth[key], rel=0.02), (
                    surface,
                    key,
                    figures[key],
                    truth[key],
                )
    assert page.dialogs == []
