"""The sidecar killed with SIGKILL mid-run: what was spooled arrives with `tpuwatch agent sync`,
every step once, whether or not the dead sidecar had already sent it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from sqlalchemy import func, select

from tests.conftest import make_token
from tests.helpers import wait_until
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Job, Step

STEPS = 20_000

CHILD = """
import os, sys, time
import tpuwatch

mon = tpuwatch.init()
for i in range({steps}):
    with mon.step():
        pass
mon.flush()  # in the spool (the OS has it) from here on
with open(sys.argv[1], "w") as fh:
    fh.write(str(os.getpid()))
time.sleep(600)
"""


def _steps(sessions) -> int:
    """This test's job's steps. The PostgreSQL database is shared by the tests of one worker, so a
    step another test's lingering agent sends meanwhile must not count here."""
    with transaction(sessions) as s:
        q = select(func.count(Step.id)).join(Job, Job.id == Step.job_id).where(Job.name == "killed")
        return s.scalar(q)


def _where(sessions) -> list:
    """Steps per (job, host), and how many distinct step numbers: where a duplicate sits."""
    with transaction(sessions) as s:
        q = select(Job.name, Step.host_index, func.count(), func.count(Step.step.distinct()))
        q = q.join(Job, Job.id == Step.job_id)
        return s.execute(q.group_by(Job.name, Step.host_index)).all()


def test_sigkill_of_the_sidecar_loses_nothing_that_was_spooled(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    script, marker = tmp_path / "train.py", tmp_path / "child.pid"
    script.write_text(textwrap.dedent(CHILD.format(steps=STEPS)))
    cmd = [
        sys.executable,
        "-m",
        "tpuwatch.cli",
        "agent",
        "run",
        "--server",
        live_server.url,
        "--token",
        token,
    ]
    with open(tmp_path / "sidecar.log", "wb") as log:
        sidecar = subprocess.Popen(
            [*cmd, "--job", "killed", "--", sys.executable, str(script), str(marker)], stdout=log, stderr=log
        )
    try:
        wait_until(lambda: marker.exists() and marker.read_text(), timeout=60)
        os.kill(sidecar.pid, signal.SIGKILL)  # mid-run: the child is alive, sending is under way
        sidecar.wait(10)
    finally:
        if marker.exists() and marker.read_text():
            os.kill(int(marker.read_text()), signal.SIGKILL)  # the orphaned training process
        if sidecar.poll() is None:
            sidecar.kill()
    delivered_live = _steps(sessions)  # whatever the sidecar sent before it died
    sync = subprocess.run(
        [
            sys.executable,
            "-m",
            "tpuwatch.cli",
            "agent",
            "sync",
            "--server",
            live_server.url,
            "--token",
            token,
            "--timeout",
            "30",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert sync.returncode == 0, sync.stderr
    assert _steps(sessions) == STEPS, (
        delivered_live,
        _where(sessions),
        sync.stderr,
        (tmp_path / "sidecar.log").read_text(),
    )
