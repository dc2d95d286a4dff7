"""`tpuwatch demo` end to end: a real server and real `tpuwatch agent run` children."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys

import httpx

from tests.helpers import wait_until


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ctrl_c_works() -> None:
    """In the demo's process, before exec: SIGINT back to its default. A test runner started in the
    background by a shell (as CI may be) passes SIGINT on ignored, and Python then never raises
    KeyboardInterrupt: the demo would not hear the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_the_demo_fills_every_page_with_something_to_look_at(tmp_path):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tpuwatch.cli", "demo", "--port", str(port), "--data-dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [proc.stdout.readline() for _ in range(3)]
        assert f"open http://127.0.0.1:{port}/" in "".join(lines), lines
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as c:

            def settled():
                jobs = c.get("/", params={"format": "json"}).json()["jobs"]
                statuses = sorted(j["status"] for j in jobs)
                return jobs if statuses.count("failed") == 1 and statuses.count("succeeded") == 3 else None

            jobs = wait_until(settled, timeout=180, interval=0.5)  # the demo jobs run ~40 s to be watched
            by = {(j["name"], j["status"]): j for j in jobs}
            assert by[("llama-8b-v5p", "running")]["hosts"] == 2
            assert by[("t5-small-v4", "succeeded")]["input_share"] > 0.2  # the input-bound one
            failed = by[("gpt2-xl-v5e", "failed")]
            assert failed["error_category"] == "oom" and failed["postmortem_url"]

            running = c.get(
                f"/jobs/{by[('resnet50-v5e', 'running')]['id']}", params={"format": "json"}
            ).json()
            assert {s["metric"] for s in running["steps"]["series"]} == {"step_time", "input_wait"}
            assert len(running["device"]["hbm"]) == 4 and len(running["device"]["duty"]) == 4  # chips

            pm = c.get(failed["postmortem_url"], params={"format": "json"}).json()
            assert pm["error_card"]["category"] == "oom"
            assert pm["hbm"]["hbm"], "the HBM trend leading up to the OOM"
            assert pm["previous"]["id"] == by[("gpt2-xl-v5e", "succeeded")]["id"]
            page = c.get(failed["postmortem_url"])
            assert page.status_code == 200 and "Ran out of memory in memory space hbm" in page.text

            def failed_alert():
                alerts = c.get("/alerts", params={"format": "json"}).json()["alerts"]
                return [a["condition"] for a in alerts if a["job_id"] == failed["id"]]

            assert wait_until(failed_alert, timeout=30, interval=0.5) == ["failed"]
            assert c.get("/triage").status_code == 200
        proc.send_signal(signal.SIGINT)
        # It stops its jobs first; 90 s bounds a hang, not the speed (a loaded CI box has taken 30).
        out, err = proc.communicate(timeout=90)
        assert proc.returncode == 0, err
    finally:
        if proc.poll() is None:  # a failed assertion: stop it as Ctrl-C would, so it stops its jobs
            stop(proc)


def stop(proc: subprocess.Popen) -> None:
    """Stop a running demo as Ctrl-C does (it stops its jobs), killing it if it will not go."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
