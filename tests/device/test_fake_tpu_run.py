"""A fake-TPU run: the real sidecar reads every metric the fake runtime metrics service offers, and
the job page, the API and /metrics show each of them, a name tpuwatch does not know by its name."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from tests.agent.test_sidecar import sidecar
from tests.agent.tpu_fake import ALL_METRICS, COLLECTIVE_NAME, UPTIME, MetricService
from tests.conftest import make_token
from tests.helpers import api, wait_for_job

SCRIPT = "import time, tpuwatch\nmon = tpuwatch.init()\nfor i in range(40):\n    with mon.step():\n"
SCRIPT += "        time.sleep(0.05)\nmon.close()\n"


def test_a_fake_tpu_run_shows_every_metric_on_the_page_the_api_and_metrics(live_server, sessions, tmp_path):
    token = make_token(sessions)
    with MetricService(chips=4) as fake:
        fake.duty = {0: 91.0, 1: 92.0, 2: 93.0, 3: 94.0}
        extra = ("--metrics-port", str(fake.port), "--metrics-every", "0.5")
        proc = sidecar(live_server.url, token, "fake-tpu", SCRIPT, tmp_path, *extra)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "fake-tpu", "succeeded")
        view = c.get(f"/api/v1/jobs/{job['id']}/device").json()
        page = c.get(f"/jobs/{job['id']}").text
        metrics = c.get("/metrics").text
        charts = c.get(f"/api/v1/jobs/{job['id']}/charts?group=tpu").json()
        pm = c.get(f"/api/v1/jobs/{job['id']}/postmortem").json()
        pm_page = c.get(f"/jobs/{job['id']}/postmortem").text
    by_series = {s["series"]: s for s in view["series"]}
    assert {s["name"] for s in view["series"]} == set(ALL_METRICS)
    duty = by_series["tpu.runtime.tensorcore.dutycycle.percent"]
    assert duty["chips"]["0"] == {"0": 91.0, "1": 92.0, "2": 93.0, "3": 94.0} and duty["p50"] == 92.5
    assert by_series[UPTIME]["known"] is False and by_series[UPTIME]["hosts"]["0"] == 3600.0
    collective = by_series[f"{COLLECTIVE_NAME}|p99"]
    assert collective["label"] == "Collective end-to-end latency p99" and collective["unit"] == "µs"
    assert 2000 < by_series[f"{COLLECTIVE_NAME}|p50"]["p50"] < 3000
    # The page: a row for every series, the unknown name shown as it is, and a chart per metric.
    for series in by_series:
        assert f'data-series="{series}"' in page
    assert f"<code><bdi>{UPTIME}</bdi></code>" in page and "Collective end-to-end latency p99.9" in page
    assert len(charts) == len(ALL_METRICS)
    exported = {
        (s.labels["metric"], s.labels["stat"])
        for f in text_string_to_metric_families(metrics)
        if f.name == "tpuwatch_job_device"
        for s in f.samples
        if s.labels["job"] == "fake-tpu"
    }
    assert {m for m, _ in exported} == set(ALL_METRICS)
    assert (COLLECTIVE_NAME, "p999") in exported and (UPTIME, "value") in exported
    # The post-mortem: the last minutes before the end, every metric, charts of the telling ones.
    assert {s["series"] for s in pm["device"]["series"]} == set(by_series)
    assert len(pm["device_figures"]) == 5 and 'id="pm-device"' in pm_page
