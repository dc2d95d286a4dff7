"""A full spool disk never costs the job its exit code, and what could not be kept is counted.

The review's case: the spool on a 64 KiB tmpfs, the server down. Training finished and exited 0; the
sidecar died with ``OSError: [Errno 28]`` in ``logfile.close()`` and exited 1; ``tpuwatch agent
sync`` crashed the same way; the server showed the job ``running`` with 0 steps and 0 dropped.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.conftest import make_token, start_server
from tests.helpers import api, wait_for_job
from tests.reliability.fakes import DownPort

STEPS = 3000

TRAIN = """
import sys, time, tpuwatch
mon = tpuwatch.init()
for i in range({steps}):
    with mon.step():
        time.sleep(0.001)
    if i % 5 == 0:  # a chatty job: its log alone outgrows the disk
        print(f"step {{i}} loss 0.{{i}} " + "." * 100, flush=True)
mon.close()
print("trained")
"""


def _agent(*args, spool, **run):
    cmd = [sys.executable, "-m", "tpuwatch.cli", "agent", *args]
    env_args = ["--spool-dir", str(spool)]
    return subprocess.run(cmd[:5] + env_args + cmd[5:], capture_output=True, text=True, timeout=180, **run)


def test_a_full_spool_disk_keeps_the_exit_code_and_counts_what_it_could_not_keep(
    settings, sessions, tiny_disk, tmp_path
):
    token = make_token(sessions)
    port = DownPort()  # the server is down while the job runs
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(TRAIN.format(steps=STEPS)))
    run = _agent(
        "run",
        "--server",
        port.url,
        "--token",
        token,
        "--job",
        "tight",
        "--heartbeat",
        "0.2",
        "--",
        sys.executable,
        str(script),
        spool=tiny_disk,
    )
    assert run.returncode == 0, run.stderr  # the child's exit code, whatever the disk did
    assert run.stdout.endswith("trained\n")
    assert "Traceback" not in run.stderr, run.stderr
    assert "could not be spooled" in run.stderr and "disk" in run.stderr, run.stderr
    assert "not delivered yet" in run.stderr, run.stderr

    from tests.reliability.fakes import start_server_on

    server = start_server_on(settings, port)
    try:
        sync = _agent("sync", "--server", server.url, "--token", token, "--timeout", "30", spool=tiny_disk)
        assert "Traceback" not in sync.stderr, sync.stderr
        assert sync.returncode == 0, sync.stderr
        with api(server.url, token) as c:
            try:
                job = wait_for_job(c, "tight", "succeeded")
            except AssertionError as exc:  # say what the server has and what each side printed
                listed = c.get("/api/v1/jobs").json()["jobs"]
                said = f"jobs: {listed}\nrun: {run.stderr}\nsync: {sync.stderr}"
                raise AssertionError(f"{exc}\n{said}") from None
            detail = c.get(f"/api/v1/jobs/{job['id']}").json()
            metrics = c.get("/metrics").text
    finally:
        server.stop()
    assert detail["exit_code"] == 0
    assert detail["dropped_events"] > 0
    assert 0 < detail["steps"] < STEPS
    # Every step either arrived or was counted as dropped (other events are counted in it too).
    assert detail["steps"] + detail["dropped_events"] >= STEPS, detail
    assert 'job="tight"' in metrics and "tpuwatch_job_dropped_events_total" in metrics


def test_sync_survives_a_disk_too_full_for_its_own_bookkeeping(settings, sessions, tiny_disk):
    """Acknowledgement files and loss notices cannot be written: sync delivers anyway, once."""
    from tests.reliability.spooling import fill_spool

    token = make_token(sessions)
    spool = tiny_disk / "run-1-h0"
    written = fill_spool(spool, batches=3, steps=300)
    filler = tiny_disk / "filler"
    try:
        with open(filler, "wb") as fh:  # whatever else lives on that disk takes the rest
            while True:
                fh.write(b"\0" * 4096)
                fh.flush()
    except OSError:
        pass
    server = start_server(settings)
    try:
        sync = _agent("sync", "--server", server.url, "--token", token, "--timeout", "30", spool=tiny_disk)
        with api(server.url, token) as c:
            [job] = c.get("/api/v1/jobs").json()["jobs"]
    finally:
        server.stop()
    assert "Traceback" not in sync.stderr and sync.returncode == 0, sync.stderr
    assert job["steps"] == written
