"""The sidecar runs a real child process against a real server on loopback."""

import ctypes
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from tests.conftest import make_token
from tests.helpers import api, jobs, wait_for_job

_started = []


@pytest.fixture(autouse=True)
def _reap_sidecars():
    """A failed assertion must not leave a sidecar running or its pipes open for a later test."""
    yield
    while _started:
        proc = _started.pop()
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)


def sidecar(server, token, job, script, tmp_path, *extra, **popen):
    path = tmp_path / f"{job}.py"
    path.write_text(textwrap.dedent(script))
    cmd = [
        sys.executable,
        "-m",
        "tpuwatch.cli",
        "agent",
        "run",
        "--server",
        server,
        "--token",
        token,
        "--job",
        job,
        *extra,
        "--",
        sys.executable,
        str(path),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen)
    _started.append(proc)
    return proc


def test_2000_steps_under_the_sidecar_arrive_and_the_job_succeeds(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    proc = sidecar(
        live_server.url,
        token,
        "steps2000",
        """
        import tpuwatch
        mon = tpuwatch.init()
        for i in range(2000):
            with mon.input_wait():
                pass
            with mon.step():
                pass
        mon.close()
        print("trained")
    """,
        tmp_path,
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out == b"trained\n"
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "steps2000", "succeeded")
    assert job["steps"] == 2000
    assert job["last_step"] == 2000
    assert job["hosts"] == 1


def test_a_command_that_raises_fails_the_job_with_its_traceback(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    proc = sidecar(
        live_server.url,
        token,
        "raiser",
        """
        print("loading data")
        def load():
            raise FileNotFoundError("gs://bucket/missing.tfrecord")
        load()
    """,
        tmp_path,
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert b"FileNotFoundError: gs://bucket/missing.tfrecord" in err  # passed through unchanged
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "raiser", "failed")
        events = c.get(f"/api/v1/jobs/{job['id']}/events").json()["events"]
    errors = [e for e in events if e["kind"] == "error"]
    assert len(errors) == 1
    assert errors[0]["message"].startswith("Traceback (most recent call last):")
    assert "FileNotFoundError: gs://bucket/missing.tfrecord" in errors[0]["message"]
    assert errors[0]["data"]["context"] == ["loading data"]
    assert job["exit_code"] == 1


def test_output_passes_through_byte_for_byte(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    proc = sidecar(
        live_server.url,
        token,
        "bytes",
        r"""
        import sys
        sys.stdout.buffer.write(b"no newline \xff\xfe progress\r50%\r100%")
        sys.stderr.write("warning line\n")
    """,
        tmp_path,
        "--no-tpu-metrics",  # off a TPU that source says once that it is unavailable, on stderr
    )
    out, err = proc.communicate(timeout=60)
    assert out == b"no newline \xff\xfe progress\r50%\r100%"
    assert err == b"warning line\n"
    assert proc.returncode == 0


def test_exit_code_is_the_childs(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    proc = sidecar(live_server.url, token, "exit3", "import sys; sys.exit(3)", tmp_path)
    proc.communicate(timeout=60)
    assert proc.returncode == 3


def test_sigterm_is_forwarded_to_the_child(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    marker = tmp_path / "got-term"
    proc = sidecar(
        live_server.url,
        token,
        "termed",
        f"""
        import signal, sys, time
        def handler(signum, frame):
            open({str(marker)!r}, "w").write("yes")
            sys.exit(143)
        signal.signal(signal.SIGTERM, handler)
        print("ready", flush=True)
        time.sleep(60)
    """,
        tmp_path,
    )
    assert proc.stdout.readline() == b"ready\n"
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=30)
    assert marker.read_text() == "yes"
    assert proc.returncode == 143
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "termed", "failed")
    assert job["exit_code"] == 143


def test_sigterm_taken_by_any_sidecar_thread_is_forwarded(live_server, sessions, spool_dir, tmp_path):
    # kill() on a pid may be delivered to any thread that does not block the signal; a main
    # thread parked in waitpid() then never ran the forwarding handler (seen as a CI hang).
    token = make_token(sessions)
    proc = sidecar(
        live_server.url,
        token,
        "termed-thread",
        """
        import signal, sys, time
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
        print("ready", flush=True)
        time.sleep(60)
    """,
        tmp_path,
    )
    assert proc.stdout.readline() == b"ready\n"
    others = sorted(int(t) for t in os.listdir(f"/proc/{proc.pid}/task") if int(t) != proc.pid)
    assert others, "the sidecar runs its tee, writer and sender threads beside the main one"
    libc = ctypes.CDLL(None, use_errno=True)
    # A short-lived thread (one HTTP send) may be gone by now; any thread still alive will do.
    delivered = next((t for t in reversed(others) if libc.tgkill(proc.pid, t, signal.SIGTERM) == 0), None)
    assert delivered, "no sidecar thread other than the main one was alive to take the signal"
    proc.communicate(timeout=30)
    assert proc.returncode == 143


def test_a_child_killed_by_a_signal_is_reported_with_the_signal(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    proc = sidecar(
        live_server.url, token, "killed", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)", tmp_path
    )
    proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGKILL
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "killed", "failed")
    assert job["exit_signal"] == "SIGKILL"


def test_heartbeats_keep_a_quiet_job_alive(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    proc = sidecar(
        live_server.url, token, "quiet", "import time; time.sleep(5)", tmp_path, "--heartbeat", "0.5"
    )
    with api(live_server.url, token) as c:
        first = wait_for_job(c, "quiet")
        time.sleep(1.5)
        later = next(j for j in jobs(c) if j["name"] == "quiet")
    proc.communicate(timeout=60)
    assert later["last_seen_at"] > first["last_seen_at"]
    assert later["status"] == "running"


def test_unknown_command_exits_127_with_a_clear_message(live_server, sessions, spool_dir):
    token = make_token(sessions)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tpuwatch.cli",
            "agent",
            "run",
            "--server",
            live_server.url,
            "--token",
            token,
            "--",
            "/nonexistent/train",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ,
    )
    assert proc.returncode == 127
    assert "cannot start '/nonexistent/train'" in proc.stderr


def test_steps_before_an_uncaught_exception_are_not_lost(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    proc = sidecar(
        live_server.url,
        token,
        "dies",
        """
        import tpuwatch
        mon = tpuwatch.init()
        for i in range(300):
            with mon.step():
                pass
        raise RuntimeError("no close() was called")
    """,
        tmp_path,
    )
    proc.communicate(timeout=60)
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "dies", "failed")
    assert job["steps"] == 300
