"""The first five minutes, as the README tells them: `tpuwatch demo` (what `make demo` runs) prints
its URL and, beside it, the lines that point one's own script at it; a new user copies them, makes a
token of their own with the `token create` line it prints, and runs the README's training loop
under `tpuwatch agent run`: the job is on the demo server with its steps, and nothing answered 401.
~40 s (the demo's own jobs run meanwhile)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import textwrap

import httpx

from tests.demo.test_demo import free_port, stop
from tests.helpers import wait_until

TRAIN = """
import time
import tpuwatch

mon = tpuwatch.init()  # server, token and job from the environment, as the README says
for batch_no in range(30):
    with mon.input_wait():
        time.sleep(0.002)
    with mon.step():
        time.sleep(0.01)
    mon.log({"loss": 1.0 / (batch_no + 1)})
mon.close()
"""


def _read_welcome(proc) -> str:
    lines = []
    while not lines or "Ctrl-C stops the demo" not in lines[-1]:
        line = proc.stdout.readline()
        assert line, "".join(lines)
        lines.append(line)
    return "".join(lines)


def _run(cmd: list[str], env: dict, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_a_new_user_gets_their_own_script_onto_the_demo_with_no_401(tmp_path):
    port = free_port()
    demo_dir = tmp_path / "demo"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TPUWATCH_")}
    env["TPUWATCH_SPOOL_DIR"] = str(tmp_path / "spool")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tpuwatch.cli", "demo", "--port", str(port), "--data-dir", str(demo_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        said = _read_welcome(proc)
        assert f"open http://127.0.0.1:{port}/" in said
        export = next(ln for ln in said.splitlines() if ln.strip().startswith("export TPUWATCH_SERVER="))
        pairs = dict(p.split("=", 1) for p in shlex.split(export.strip())[1:])
        assert pairs["TPUWATCH_SERVER"] == f"http://127.0.0.1:{port}" and pairs["TPUWATCH_TOKEN"].startswith(
            "tpw_"
        )
        create = next(ln for ln in said.splitlines() if "tpuwatch token create" in ln)

        (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN))
        # Their own token, from the line the demo printed (the demo's database, not the default one).
        made = _run([sys.executable, "-m", "tpuwatch.cli", *shlex.split(create.strip())[1:]], env, tmp_path)
        assert made.returncode == 0, made.stderr
        assert str(demo_dir) in made.stdout  # it says which database it wrote to
        own = made.stdout.strip().splitlines()[-1]
        for token, job in ((pairs["TPUWATCH_TOKEN"], "my-first-job"), (own, "my-own-project-job")):
            user = {**env, "TPUWATCH_SERVER": pairs["TPUWATCH_SERVER"], "TPUWATCH_TOKEN": token}
            agent = [
                "tpuwatch.cli",
                "agent",
                "run",
                "--job",
                job,
                "--no-tpu-metrics",
                "--",
                sys.executable,
                "train.py",
            ]
            ran = _run([sys.executable, "-m", *agent], user, tmp_path)
            assert ran.returncode == 0, ran.stderr[-2000:]
            assert not re.search(r"\b401\b|unauthori[sz]ed", ran.stderr, re.I), ran.stderr[-2000:]
            with httpx.Client(
                base_url=pairs["TPUWATCH_SERVER"], headers={"Authorization": f"Bearer {token}"}
            ) as c:

                def arrived(job=job):
                    jobs = c.get("/api/v1/jobs").json()["jobs"]
                    return next((j for j in jobs if j["name"] == job and j["steps"] == 30), None)

                assert wait_until(arrived, timeout=30)["status"] == "succeeded"
    finally:
        stop(proc)
