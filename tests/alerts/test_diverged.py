"""A run whose loss went NaN or infinite is ``diverged`` on the overview, its own status, and
raises one alert whatever its exit code: a clean exit 0 after the NaN, or a crash after it."""

from __future__ import annotations

import math
import time

import pytest

from tests.alerts.conftest import fast
from tests.conftest import make_token, start_server
from tests.helpers import api, wait_for_job, wait_until
from tests.jobs.seed import post


def _diverging_loop(server: str, token: str, job: str, exit_code: int) -> None:
    from tpuwatch.monitor import Monitor

    mon = Monitor(job, server=server, token=token, flush_interval=0.05, send_interval=0.1)
    mon.report_exit = exit_code == 0
    for n, loss in enumerate([1.0, 0.6, 0.4, math.nan, math.nan, math.nan], 1):
        with mon.step(n):
            time.sleep(0.01)
        mon.log({"loss": loss}, step=n)
    mon.close()


@pytest.mark.parametrize("exit_code", [0, 1])
def test_a_nan_run_is_diverged_on_the_overview_and_alerts_once(
    settings, sessions, webhook, spool_dir, exit_code
):
    server = start_server(fast(settings, webhook.url))
    token = make_token(sessions)
    try:
        _diverging_loop(server.url, token, "nan-run", exit_code)
        with api(server.url, token) as c:
            if exit_code:  # the job crashes after the NaN: still one story, one alert
                job = wait_for_job(c, "nan-run")
                run_id = job["run_id"]
                post(c, run_id, "nan-run", 0, 0, events=[[time.time(), "exit", "", {"code": exit_code}]])
            job = wait_for_job(c, "nan-run", "diverged", ended=True)
            assert job["exit_code"] == exit_code
            row = next(j for j in c.get("/api/v1/overview").json()["jobs"] if j["id"] == job["id"])
            assert row["status"] == "diverged" and row["postmortem_url"]
            assert 'class="badge diverged"' in c.get("/").text
            wait_until(lambda: webhook.firing(), timeout=20)
            time.sleep(2.0)  # several more evaluation passes: no repeat, no change, no resolve
            (alert,) = c.get("/api/v1/alerts").json()["alerts"]
        assert alert["condition"] == "diverged"
        assert "NaN" in alert["summary"]
        assert len(webhook.texts()) == 1 and len(webhook.firing()) == 1  # one message, ever
    finally:
        server.stop()
