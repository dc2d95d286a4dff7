"""Jobs under the real sidecar: killed with SIGKILL (lost) and crashing (failed, with its card)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from tests.alerts.conftest import fast
from tests.conftest import make_token, start_server
from tests.helpers import api, wait_for_job, wait_until


def sidecar(server, token, job, script, tmp_path):
    path = tmp_path / f"{job}.py"
    path.write_text(textwrap.dedent(script))
    cmd = [sys.executable, "-m", "tpuwatch.cli", "agent", "run", "--server", server, "--token", token]
    cmd += ["--job", job, "--heartbeat", "0.5", "--", sys.executable, str(path)]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_a_sidecar_killed_with_sigkill_yields_a_lost_alert(settings, sessions, webhook, spool_dir, tmp_path):
    server = start_server(fast(settings, webhook.url, lost_after_seconds=3.0, stall_floor_seconds=30.0))
    token = make_token(sessions)
    pidfile = tmp_path / "child.pid"
    proc = sidecar(
        server.url,
        token,
        "killed",
        f"""
        import os, time, tpuwatch
        open({str(pidfile)!r}, "w").write(str(os.getpid()))
        mon = tpuwatch.init()
        while True:
            with mon.step():
                time.sleep(0.1)
        """,
        tmp_path,
    )
    try:
        with api(server.url, token) as c:
            wait_until(
                lambda: any(
                    j["name"] == "killed" and j["steps"] > 5 for j in c.get("/api/v1/jobs").json()["jobs"]
                )
            )
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            wait_until(lambda: webhook.firing(), timeout=20)
            assert wait_for_job(c, "killed")["status"] == "lost"
            (alert,) = c.get("/api/v1/alerts").json()["alerts"]
    finally:
        if pidfile.exists():
            try:
                os.kill(int(pidfile.read_text()), signal.SIGKILL)  # the orphaned training process
            except ProcessLookupError:
                pass
        server.stop()
    (text,) = webhook.firing()
    assert "is lost" in text and "no word from any host" in text
    assert alert["condition"] == "lost" and alert["state"] == "open"
    assert len(webhook.bodies) == 1


def test_a_failing_job_yields_a_failed_alert_with_its_error_card_title(
    settings, sessions, webhook, smtp, spool_dir, tmp_path
):
    s = fast(settings, webhook.url, smtp_host="127.0.0.1", smtp_port=smtp.port, smtp_from="tpuwatch@test")
    server = start_server(s)
    token = make_token(sessions)
    try:
        with api(server.url, token) as c:
            r = c.post("/api/v1/alerts/channels", json={"kind": "email", "target": "oncall@example.com"})
            assert r.status_code == 201, r.text
            proc = sidecar(
                server.url,
                token,
                "ooms",
                """
                import tpuwatch
                mon = tpuwatch.init()
                for i in range(20):
                    with mon.step():
                        pass
                raise RuntimeError("RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. "
                                   "Used 17.50G of 15.48G hbm. Exceeded hbm capacity by 2.02G.")
                """,
                tmp_path,
            )
            assert proc.wait(60) == 1
            job = wait_for_job(c, "ooms", "failed")
            events = c.get(f"/api/v1/jobs/{job['id']}/events", params={"kind": "error"}).json()["events"]
            title = events[-1]["data"]["cards"][0]["title"]
            wait_until(lambda: webhook.firing() and smtp.messages, timeout=20)
    finally:
        server.stop()
    (text,) = webhook.firing()
    assert f"exited with code 1: {title}" in text
    assert f"http://tpuwatch.test/jobs/{job['id']}/postmortem" in text
    ((rcpts, msg),) = smtp.messages
    assert rcpts == ["oncall@example.com"]
    assert "[FIRING]" in msg["Subject"] and "failed" in msg["Subject"]
    assert title in msg.get_content()
