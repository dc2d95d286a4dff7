"""The sidecar's sources end to end: a real child, a real server, protocol fakes for Google's side."""

from __future__ import annotations

import os
import time

import pytest

from tests.agent.fakes import MetadataServer, MetricService, TpuApi, closed_port
from tests.agent.test_sidecar import sidecar
from tests.conftest import make_token
from tests.helpers import api, jobs, wait_for_job, wait_until

NODE = "projects/proj-1/locations/us-central2-b/nodes/my-v4"

STEPS = """
import time
import tpuwatch
mon = tpuwatch.init()
for i in range({n}):
    with mon.step():
        time.sleep({sleep})
mon.close()
"""


def events_of(c, job_id: int, kind: str) -> list[dict]:
    return c.get(f"/api/v1/jobs/{job_id}/events", params={"kind": kind}).json()["events"]


def test_per_chip_hbm_and_duty_cycle_arrive_from_the_metrics_service(
    live_server, sessions, spool_dir, tmp_path
):
    token = make_token(sessions)
    with MetricService(chips=2) as fake:
        proc = sidecar(
            live_server.url,
            token,
            "hbm",
            STEPS.format(n=40, sleep=0.05),
            tmp_path,
            "--metrics-port",
            str(fake.port),
        )
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "hbm", "succeeded")
        used = c.get(f"/api/v1/jobs/{job['id']}/metrics", params={"name": "tpu.hbm.used_bytes"}).json()
        duty = c.get(f"/api/v1/jobs/{job['id']}/metrics", params={"name": "tpu.duty_cycle_pct"}).json()
        page = c.get(f"/jobs/{job['id']}", params={"format": "json"}).json()  # what the job page draws
    assert [s["metric"] for s in page["device"]["hbm"]] == ["chip 0", "chip 1"]
    assert [s["metric"] for s in page["device"]["duty"]] == ["chip 0", "chip 1"]
    assert {"tpu.hbm.used_bytes", "tpu.hbm.total_bytes", "tpu.duty_cycle_pct"} <= set(used["names"])
    assert [(s["host"], s["chip"]) for s in used["series"]] == [(0, 0), (0, 1)]
    assert used["series"][1]["value"][0] == 2e9
    assert [s["value"][0] for s in duty["series"]] == [50.0, 51.0]
    assert b"tpu metrics" not in err


def test_without_a_metrics_service_one_clear_line_and_the_run_is_unaffected(
    live_server, sessions, spool_dir, tmp_path
):
    token = make_token(sessions)
    port = closed_port()
    proc = sidecar(
        live_server.url,
        token,
        "no-tpu",
        STEPS.format(n=100, sleep=0.01),
        tmp_path,
        "--metrics-port",
        str(port),
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0
    lines = [x for x in err.decode().splitlines() if "tpu metrics" in x]
    assert len(lines) == 1, err
    assert f"localhost:{port} unavailable" in lines[0] and "UNAVAILABLE" in lines[0]
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "no-tpu", "succeeded")
    assert job["steps"] == 100


def test_a_preempted_node_is_an_event_and_names_the_cause_when_the_job_dies(
    live_server, sessions, spool_dir, tmp_path
):
    token = make_token(sessions)
    release = tmp_path / "release"
    script = f"""
import os, sys, time
import tpuwatch
mon = tpuwatch.init()
while not os.path.exists({str(release)!r}):
    with mon.step():
        time.sleep(0.02)
mon.close()
sys.exit(1)  # what a worker does when its TPU goes away under it
"""
    with TpuApi(NODE) as fake:
        proc = sidecar(
            live_server.url,
            token,
            "preempted",
            script,
            tmp_path,
            "--no-tpu-metrics",
            "--tpu-api-endpoint",
            fake.url,
            "--tpu-node",
            NODE,
            "--node-poll",
            "0.2",
        )
        try:
            with api(live_server.url, token) as c:
                job = wait_for_job(c, "preempted")
                wait_until(lambda: events_of(c, job["id"], "node_state"))
                fake.state = "PREEMPTED"
                states = wait_until(
                    lambda: (
                        len(events_of(c, job["id"], "node_state")) >= 2
                        and events_of(c, job["id"], "node_state")
                    )
                )
                release.write_text("go")
                proc.communicate(timeout=60)
                wait_for_job(c, "preempted", "failed")
                detail = c.get(f"/api/v1/jobs/{job['id']}").json()
        finally:
            if proc.poll() is None:
                proc.kill()
    assert [e["data"]["state"] for e in states] == ["READY", "PREEMPTED"]
    assert states[1]["data"]["likely_cause"] == "preemption"
    assert detail["likely_cause"]["cause"] == "preemption"
    assert detail["likely_cause"]["state"] == "PREEMPTED"
    assert "preempted" in detail["likely_cause"]["summary"]


def test_a_job_that_dies_on_a_healthy_node_has_no_likely_cause(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    with TpuApi(NODE) as fake:
        proc = sidecar(
            live_server.url,
            token,
            "plain-fail",
            "import time, sys; time.sleep(0.8); sys.exit(2)",
            tmp_path,
            "--no-tpu-metrics",
            "--tpu-api-endpoint",
            fake.url,
            "--tpu-node",
            NODE,
            "--node-poll",
            "0.2",
        )
        proc.communicate(timeout=60)
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "plain-fail", "failed")
        assert events_of(c, job["id"], "node_state")
        assert c.get(f"/api/v1/jobs/{job['id']}").json()["likely_cause"] is None


def test_two_workers_of_one_slice_are_one_job_with_two_hosts(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    with MetadataServer(node="my-v4", worker=0) as w0, MetadataServer(node="my-v4", worker=1) as w1:
        procs = []
        for meta in (w0, w1):
            env = {**os.environ, "GCE_METADATA_HOST": meta.host}
            procs.append(
                sidecar(
                    live_server.url,
                    token,
                    "slice",
                    STEPS.format(n=25, sleep=0.005),
                    tmp_path,
                    "--no-tpu-metrics",
                    "--launch",
                    "launch-7",
                    env=env,
                )
            )
        for p in procs:
            p.communicate(timeout=60)
            assert p.returncode == 0
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "slice", "succeeded")
        detail = c.get(f"/api/v1/jobs/{job['id']}").json()
        assert len([j for j in jobs(c) if j["name"] == "slice"]) == 1
    assert job["run_id"] == "my-v4-launch-7"
    assert job["hosts"] == 2 and job["steps"] == 25 and job["host_steps"] == 50  # training steps, not a sum
    hosts = detail["host_list"]
    assert [h["host_index"] for h in hosts] == [0, 1]
    assert [h["steps"] for h in hosts] == [25, 25]
    assert hosts[1]["attrs"]["identity"]["tpu_name"] == "my-v4"
    assert hosts[1]["attrs"]["identity"]["worker"] == 1


def test_a_stalled_process_has_its_stacks_taken_once(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    script = """
import time
import tpuwatch
mon = tpuwatch.init()
for i in range(30):
    with mon.step():
        time.sleep(0.002)

def stuck_waiting_for_the_coordinator():
    time.sleep(6)

stuck_waiting_for_the_coordinator()
mon.close()
"""
    proc = sidecar(
        live_server.url, token, "stuck", script, tmp_path, "--no-tpu-metrics", "--stall-after", "1.5"
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "stuck", "succeeded")
        stacks = events_of(c, job["id"], "stacks")
    assert len(stacks) == 1
    assert stacks[0]["data"]["method"] in ("faulthandler", "py-spy")
    assert "stuck_waiting_for_the_coordinator" in stacks[0]["message"]
    assert stacks[0]["data"]["step"] == 30
    assert stacks[0]["data"]["stalled_for"] >= 1.5


@pytest.fixture
def storage_emulator(monkeypatch):
    from gcp_storage_emulator.server import create_server

    port = closed_port()
    server = create_server("127.0.0.1", port, in_memory=True, default_bucket="logs-bucket")
    server.start()
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{port}")
    yield f"http://127.0.0.1:{port}"
    server.stop()


def test_the_log_is_archived_to_cloud_storage_on_exit(
    live_server, sessions, spool_dir, tmp_path, storage_emulator
):
    from google.cloud import storage

    token = make_token(sessions)
    script = "import sys\nfor i in range(200): print('line', i)\nprint('to stderr', file=sys.stderr)\n"
    proc = sidecar(
        live_server.url,
        token,
        "archived",
        script,
        tmp_path,
        "--no-tpu-metrics",
        "--archive",
        "gs://logs-bucket/runs",
    )
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "archived", "succeeded")
        archive = wait_until(lambda: events_of(c, job["id"], "archive"))
    url = archive[0]["data"]["url"]
    assert url == f"gs://logs-bucket/runs/archived/{job['run_id']}/host-0.log"
    blob = storage.Client().bucket("logs-bucket").blob(url.removeprefix("gs://logs-bucket/"))
    text = blob.download_as_bytes().decode()
    assert "line 199\n" in text and "to stderr\n" in text
    assert len(text.splitlines()) == 201


def test_a_bad_archive_url_is_refused_before_the_job_starts(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    marker = tmp_path / "ran"
    proc = sidecar(
        live_server.url, token, "bad-url", f"open({str(marker)!r}, 'w')", tmp_path, "--archive", "s3://nope"
    )
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert b"--archive" in err and b"gs://" in err
    time.sleep(0.2)
    assert not marker.exists()
