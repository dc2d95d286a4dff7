"""/metrics: the Prometheus text format with per-job gauges, read from the database per scrape.

HBM comes from the real agent reading the libtpu metrics service (a protocol fake), so the names
the server looks for are the ones an agent sends."""

from __future__ import annotations

import time

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.agent.fakes import MetricService
from tests.agent.test_sidecar import sidecar
from tests.conftest import make_token, start_server
from tests.helpers import api, wait_for_job
from tpuwatch.server.settings import Settings


def _batch(run_id, job, steps=4, step_time=0.5, wait=0.1, events=(), seq=0):
    now = time.time()
    return {
        "stream": f"s-{run_id}",
        "seq": seq,
        "run": {"run_id": run_id, "job": job, "host": 0},
        "steps": [[i + 1, now - 10 + i, step_time, wait] for i in range(steps)],
        "events": list(events),
    }


def _samples(text: str) -> dict[tuple, float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            labels = tuple(sorted((k, v) for k, v in s.labels.items() if k in ("job", "status")))
            out[(s.name, labels)] = s.value
    return out


def test_metrics_report_per_job_gauges_in_the_prometheus_format(live_server, sessions):
    token = make_token(sessions)
    with api(live_server.url, token) as c:
        assert c.post("/api/v1/ingest", json=_batch("r1", "bert")).status_code == 200
        r = c.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    s = _samples(r.text)
    job = (("job", "bert"),)
    assert s[("tpuwatch_job_step_time_seconds", job)] == pytest.approx(0.5)
    # The page's input share: wait over step and wait together (0.1 / 0.6), never wait / step.
    assert s[("tpuwatch_job_input_wait_ratio", job)] == pytest.approx(0.1 / 0.6)
    assert ("tpuwatch_job_hbm_used_ratio", job) not in s  # no device samples: no series, not 0
    assert 5 <= s[("tpuwatch_job_seconds_since_last_step", job)] < 60
    assert s[("tpuwatch_job_steps_total", job)] == 4
    assert s[("tpuwatch_job_status", (("job", "bert"), ("status", "running")))] == 1
    assert s[("tpuwatch_job_status", (("job", "bert"), ("status", "failed")))] == 0
    assert s[("tpuwatch_jobs", (("status", "running"),))] == 1


def test_a_failed_job_shows_as_failed_with_its_errors_counted(live_server, sessions):
    token = make_token(sessions)
    now = time.time()
    events = [[now, "error", "RuntimeError: x", None], [now, "exit", "", {"code": 1, "signal": None}]]
    with api(live_server.url, token) as c:
        c.post("/api/v1/ingest", json=_batch("r2", "gpt", events=events))
        s = _samples(c.get("/metrics").text)
    assert s[("tpuwatch_job_status", (("job", "gpt"), ("status", "failed")))] == 1
    assert s[("tpuwatch_job_errors_total", (("job", "gpt"),))] == 1
    assert s[("tpuwatch_jobs", (("status", "failed"),))] == 1


def test_metrics_show_only_the_tokens_project_and_need_a_reader(live_server, sessions):
    mine, theirs = make_token(sessions, "mine"), make_token(sessions, "theirs")
    with api(live_server.url, theirs) as c:
        c.post("/api/v1/ingest", json=_batch("r3", "their-job"))
    with api(live_server.url, mine) as c:
        assert "their-job" not in c.get("/metrics").text
    with api(live_server.url, None) as c:
        assert c.get("/metrics").status_code == 401
    with api(live_server.url, make_token(sessions, "mine", scope="ingest")) as c:
        assert c.get("/metrics").status_code == 403


def test_an_open_server_shows_every_project_without_a_token(database_url, tmp_path, sessions):
    server = start_server(
        Settings(db=database_url, data_dir=tmp_path / "d", secret_key="k", open_access=True)
    )
    try:
        with api(server.url, make_token(sessions, "x")) as c:
            c.post("/api/v1/ingest", json=_batch("r4", "open-job"))
        with api(server.url, None) as c:
            assert "open-job" in c.get("/metrics").text
    finally:
        server.stop()


def test_hbm_share_comes_from_what_the_agent_reads_off_the_tpu_metrics_service(
    live_server, sessions, spool_dir, tmp_path
):
    token = make_token(sessions)
    script = "import time, tpuwatch\nmon = tpuwatch.init()\nfor i in range(30):\n    with mon.step():\n"
    script += "        time.sleep(0.05)\nmon.close()\n"
    with MetricService(chips=2) as fake:
        fake.used = {0: 4 * 2**30, 1: 12 * 2**30}
        proc = sidecar(live_server.url, token, "hbm-job", script, tmp_path, "--metrics-port", str(fake.port))
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    with api(live_server.url, token) as c:
        wait_for_job(c, "hbm-job", "succeeded")
        s = _samples(c.get("/metrics").text)
    assert s[("tpuwatch_job_hbm_used_ratio", (("job", "hbm-job"),))] == pytest.approx(
        12 / 16
    )  # the fullest chip
