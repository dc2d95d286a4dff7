"""Data left behind is said, delivered by itself, and never leaves a job ``running`` for good.

The review's case: the server killed mid-run and restarted. Nothing was lost or doubled, but the
sidecar exited at the job's end with 8 segments unsent, said only "will be retried", and the job
stayed ``running`` until someone thought of `tpuwatch agent sync`.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from sqlalchemy import func, select

from tests.conftest import make_token
from tests.helpers import api, wait_for_job, wait_until
from tests.reliability.fakes import DownPort, start_server_on
from tpuwatch.monitor import Monitor
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Step

CHILD = """
import os, sys, time, tpuwatch
mon = tpuwatch.init()
for i in range(300):
    with mon.step():
        time.sleep(0.005)
open(sys.argv[1], "w").write("half")
while not os.path.exists(sys.argv[2]):  # the test takes the server away meanwhile
    time.sleep(0.05)
for i in range(300):
    with mon.step():
        time.sleep(0.005)
mon.close()
"""


def _agent_run(url, token, spool, job, *command, **popen):
    cmd = [sys.executable, "-m", "tpuwatch.cli", "agent", "run", "--server", url, "--token", token]
    cmd += ["--spool-dir", str(spool), "--job", job, "--heartbeat", "0.3", "--no-tpu-metrics", "--", *command]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def _steps(sessions) -> int:
    with transaction(sessions) as s:
        return s.scalar(select(func.count(Step.id)))


def test_a_job_that_ends_while_the_server_is_away_says_so_goes_lost_and_the_next_run_delivers_it(
    settings, sessions, tmp_path
):
    settings = settings.model_copy(update={"lost_after_seconds": 2.0, "alerts_enabled": False})
    token, port = make_token(sessions), DownPort()
    url = port.url
    spool, half, go = tmp_path / "spool", tmp_path / "half", tmp_path / "go"
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(CHILD))
    server = start_server_on(settings, port)
    proc = _agent_run(url, token, spool, "interrupted", sys.executable, str(script), str(half), str(go))
    try:
        wait_until(lambda: half.exists() and _steps(sessions) > 0, timeout=60)
        server.stop()  # killed mid-run
        port.hold()
        go.write_text("go")
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "not delivered yet" in err and "the next `tpuwatch agent run` on this machine" in err, err

    server = start_server_on(settings, port)  # back, but nobody ran `agent sync`
    try:
        with api(url, token) as c:
            assert wait_for_job(c, "interrupted", "lost", timeout=30)  # not `running` for good
            nxt = _agent_run(
                url, token, spool, "next-job", sys.executable, "-c", "import time; time.sleep(2)"
            )
            nxt_out, nxt_err = nxt.communicate(timeout=120)
            assert nxt.returncode == 0, nxt_err
            assert "delivered what an earlier run left" in nxt_err, nxt_err
            job = wait_for_job(c, "interrupted", "succeeded", timeout=30)
    finally:
        server.stop()
    assert job["steps"] == 600 and job["exit_code"] == 0
    assert _steps(sessions) == 600  # every step once


class _LongBackoff:
    """A sender that has failed for a while: its next try is 30 s away."""

    def __init__(self) -> None:
        self.calls = 0

    def next_delay(self) -> float:
        self.calls += 1
        return 30.0

    def reset(self) -> None:
        pass


def test_closing_cuts_a_long_backoff_short_and_delivers_to_a_server_that_came_back(
    settings, sessions, tmp_path
):
    token, port = make_token(sessions), DownPort()
    mon = Monitor("back", server=port.url, token=token, spool_dir=tmp_path, flush_interval=0.05)
    backoff = mon._sender_thread.sender.backoff = _LongBackoff()
    for _ in range(500):
        with mon.step():
            pass
    wait_until(lambda: backoff.calls, timeout=30)  # the sender tried, failed, and sleeps its 30 s
    server = start_server_on(settings, port)
    try:
        mon.close(timeout=8.0)
        with api(server.url, token) as c:
            job = wait_for_job(c, "back")
    finally:
        server.stop()
    assert job["steps"] == 500
