"""What was recorded while the server was down arrives exactly once after `tpuwatch agent sync`."""

import shutil
import subprocess
import sys

from tests.conftest import make_token, start_server
from tests.helpers import api, jobs
from tpuwatch.monitor import Monitor


def _sync(url, token):
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "tpuwatch.cli",
            "agent",
            "sync",
            "--server",
            url,
            "--token",
            token,
            "--timeout",
            "20",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_steps_recorded_while_the_server_is_down_are_stored_once_after_sync(settings, sessions, spool_dir):
    token = make_token(sessions)
    mon = Monitor("offline", server="http://127.0.0.1:9", token=token)  # nothing listens there
    for _ in range(5000):
        with mon.step():
            pass
    mon.event("exit", "", code=0, signal=None)
    mon.close(timeout=1.0)

    backup = spool_dir.parent / "spool-copy"
    shutil.copytree(spool_dir, backup)  # to deliver the very same batches a second time
    server = start_server(settings)
    try:
        first = _sync(server.url, token)
        assert first.returncode == 0, first.stderr
        assert "delivered" in first.stderr
        with api(server.url, token) as c:
            [job] = jobs(c)
            assert job["steps"] == 5000 and job["status"] == "succeeded"
            shutil.rmtree(spool_dir)
            shutil.copytree(backup, spool_dir)
            second = _sync(server.url, token)
            assert second.returncode == 0
            assert "5001 events (1 already stored" in second.stderr
            [again] = jobs(c)
            assert again["steps"] == 5000, (first.stderr, second.stderr)
    finally:
        server.stop()


def test_sync_says_so_when_the_server_is_still_down(spool_dir):
    mon = Monitor("offline", server="http://127.0.0.1:9", token="t")
    with mon.step():
        pass
    mon.close(timeout=0.5)
    proc = subprocess.run(
        [sys.executable, "-m", "tpuwatch.cli", "agent", "sync", "--timeout", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "NOT fully delivered" in proc.stderr
