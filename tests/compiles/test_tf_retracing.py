"""Real TensorFlow on the CPU: a ``tf.function`` fed a new shape at every call warns that it
retraces; the warning becomes compile events naming the function, read from the output under the
sidecar and from the ``tensorflow`` logger in a process recording by itself."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.agent.test_sidecar import sidecar
from tests.conftest import make_token
from tests.helpers import api, wait_for_job

SCRIPT = """
import tensorflow as tf
import tpuwatch

mon = tpuwatch.init()

@tf.function
def train_step(x):
    return tf.reduce_sum(x * 2.0)

for n in range(1, 9):  # eight shapes: TensorFlow warns from the fifth trace on
    with mon.step():
        train_step(tf.ones((n, 4)))
print("tf done")
"""


@pytest.mark.parametrize("how", ["sidecar", "in-process"])
def test_tf_retracing_warnings_name_the_function_on_the_job_page(live_server, sessions, tmp_path, how):
    token = make_token(sessions)
    job = f"tf-retrace-{how}"
    if how == "sidecar":
        proc = sidecar(live_server.url, token, job, SCRIPT, tmp_path, "--no-tpu-metrics")
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err.decode()[-3000:]
    else:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TPUWATCH_")}
        env.update(
            TPUWATCH_SERVER=live_server.url,
            TPUWATCH_TOKEN=token,
            TPUWATCH_JOB=job,
            TPUWATCH_SPOOL_DIR=str(tmp_path / "spool"),
        )
        done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, timeout=180)
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        err = done.stderr
    assert b"triggered tf.function retracing" in err  # what TensorFlow printed, read by the agent
    with api(live_server.url, token) as c:
        found = wait_for_job(c, job, "succeeded", timeout=30)
        compiles = c.get(f"/api/v1/jobs/{found['id']}/compiles").json()
        page = c.get(f"/jobs/{found['id']}", params={"format": "json"}).json()
    [fn] = compiles["functions"]
    assert (fn["function"], fn["framework"]) == ("train_step", "tensorflow")
    # The warnings count the traces of the last calls (5 of 5, 6 of 6, ...): at least five, at most eight.
    assert 5 <= fn["count"] <= 8 and fn["total_s"] is None
    assert compiles["recompiling"] == ["train_step"]
    card = next(c for c in page["perf_cards"] if c["subtype"] == "recompilation")
    assert "train_step" in card["title"] and any("input_signature" in f for f in card["fixes"])
