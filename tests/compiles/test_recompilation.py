"""Real JAX on the CPU under ``tpuwatch.init()``, stored by a real server: n distinct input shapes
are n compilations of the training step, named, timed, counted in goodput's compile share, shown on
the job page, and a job that keeps recompiling gets the card and the alert; a steady one neither."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from sqlalchemy import select

from tests.alerts.conftest import fast
from tests.conftest import make_token
from tests.helpers import api, wait_for_job
from tpuwatch.server.alerts.evaluator import Evaluator
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Alert

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import tpuwatch

    mon = tpuwatch.init(job=sys.argv[1])
    import jax  # after init(): the listener attaches when JAX arrives

    @jax.jit
    def train_step(x):
        return (x * 2.0).sum()

    for n in [int(s) for s in sys.argv[2].split(",")]:
        with mon.step():
            train_step(np.ones((n, 4), np.float32)).block_until_ready()
    if sys.argv[3] == "running":
        mon.report_exit = False  # the process goes, the job looks alive (as under the sidecar)
    mon.close()
    """
)
FIVE_SHAPES = "1,2,3,4,5,1,2,3,4,5,5,5"
STEADY = ",".join(["8"] * 12)


def _train(url: str, token: str, tmp_path, job: str, shapes: str, end: str = "exit") -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TPUWATCH_")}
    env.update(TPUWATCH_SERVER=url, TPUWATCH_TOKEN=token, TPUWATCH_SPOOL_DIR=str(tmp_path / job))
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, job, shapes, end], env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_five_shapes_are_five_named_timed_compilations_and_a_recompilation_card(
    live_server, sessions, tmp_path
):
    token = make_token(sessions)
    _train(live_server.url, token, tmp_path, "shapes", FIVE_SHAPES)
    _train(live_server.url, token, tmp_path, "steady", STEADY)
    with api(live_server.url, token) as c:
        shapes = wait_for_job(c, "shapes", "succeeded", timeout=30)
        steady = wait_for_job(c, "steady", "succeeded", timeout=30)
        compiles = c.get(f"/api/v1/jobs/{shapes['id']}/compiles").json()
        quiet = c.get(f"/api/v1/jobs/{steady['id']}/compiles").json()
        page = c.get(f"/jobs/{shapes['id']}", params={"format": "json"}).json()
        quiet_page = c.get(f"/jobs/{steady['id']}", params={"format": "json"}).json()
        html = c.get(f"/jobs/{shapes['id']}").text
        chart = c.get(f"/api/v1/jobs/{shapes['id']}/charts", params={"group": "compiles"}).json()
        goodput = c.get(f"/api/v1/jobs/{shapes['id']}/goodput").json()

    assert compiles["compilations"] == 5
    [fn] = compiles["functions"]
    assert (fn["function"], fn["count"], fn["recompiles"]) == ("train_step", 5, 4)
    assert [p["step"] for p in compiles["points"]] == [1, 2, 3, 4, 5]
    assert all(p["duration"] > 0 for p in compiles["points"])
    assert compiles["recompiling"] == ["train_step"]
    assert abs(fn["total_s"] - sum(p["duration"] for p in compiles["points"])) < 1e-6

    card = next(c for c in page["perf_cards"] if c["subtype"] == "recompilation")
    assert "train_step" in card["title"] and card["facts"]["measured"] is True
    assert 'id="compiles"' in html and "<code>train_step</code>" in html
    assert chart["compiles"]["data"][0]["x"] == [1, 2, 3, 4, 5]
    # Goodput's compile share is the compilations JAX timed (one host: they never overlap).
    assert abs(goodput["badput_s"]["compile"] - compiles["total_s"]) < 0.01

    assert quiet["compilations"] == 1 and quiet["recompiling"] == []
    assert [f["count"] for f in quiet["functions"]] == [1]
    assert not [c for c in quiet_page["perf_cards"] if c["subtype"] == "recompilation"]


def test_a_running_job_that_keeps_recompiling_raises_one_alert_naming_the_function(
    live_server, settings, sessions, tmp_path
):
    token = make_token(sessions)
    _train(live_server.url, token, tmp_path, "storm", FIVE_SHAPES, end="running")
    _train(live_server.url, token, tmp_path, "calm", STEADY, end="running")
    with api(live_server.url, token) as c:
        storm = wait_for_job(c, "storm", "running", timeout=30)
        calm = wait_for_job(c, "calm", "running", timeout=30)
    evaluator = Evaluator(fast(settings, lost_after_seconds=1e6, stall_floor_seconds=1e5))
    for _ in range(2):  # a second pass changes nothing
        with transaction(sessions) as s:
            evaluator.evaluate(s)
    with transaction(sessions) as s:
        alerts = s.execute(select(Alert.job_id, Alert.condition, Alert.summary, Alert.notifications)).all()
    assert [(a.job_id, a.condition, a.notifications) for a in alerts] == [(storm["id"], "recompiling", 1)]
    assert alerts[0].summary.startswith("train_step compiled 5 times (4 after its first)")
    assert calm["id"] not in [a.job_id for a in alerts]
