"""Runs that exit 0 although they went wrong: a NaN loss (Keras TerminateOnNaN, ``mon.log``) and a
run that ends far short of its declared steps get their flag and card. Keras runs are real
TensorFlow on the CPU under `tpuwatch agent run`."""

from __future__ import annotations

import math

import pytest

from tests.agent.test_sidecar import sidecar
from tests.conftest import make_token
from tests.helpers import api, wait_for_job
from tpuwatch.monitor import Monitor

KERAS_NAN = """
import numpy as np
import tensorflow as tf

from tpuwatch.keras import TPUWatchCallback

x = np.ones((160, 4), dtype=np.float32)
x[50] = np.nan  # batch 3 (0-based) has a NaN: its loss is NaN and TerminateOnNaN stops fit()
y = np.ones((160, 1), dtype=np.float32)
model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0,
          callbacks=[TPUWatchCallback(), tf.keras.callbacks.TerminateOnNaN()])
"""

KERAS_SHORT = """
import numpy as np
import tensorflow as tf

from tpuwatch.keras import TPUWatchCallback

x = np.ones((480, 4), dtype=np.float32)
ds = tf.data.Dataset.from_tensor_slices((x, x[:, :1])).batch(16)  # 30 batches and no repeat()
model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(ds, epochs=1, steps_per_epoch=60, verbose=0, callbacks=[TPUWatchCallback()])
"""


def _page(c, job: dict) -> dict:
    return c.get(f"/jobs/{job['id']}", params={"format": "json"}).json()


# Two TensorFlow processes take most of a minute on CI's two cores: once, on SQLite, is enough (the
# flags are read through the same queries on both databases; the custom-loop test runs on both).
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_keras_nan_loss_and_dataset_run_out_end_flagged_although_exit_0(
    live_server, sessions, spool_dir, tmp_path
):
    token = make_token(sessions)
    procs = [
        sidecar(live_server.url, token, "keras-nan", KERAS_NAN, tmp_path, "--no-tpu-metrics"),
        sidecar(live_server.url, token, "keras-short", KERAS_SHORT, tmp_path, "--no-tpu-metrics"),
    ]
    outs = [p.communicate(timeout=180) for p in procs]
    for p, (_, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err.decode()[-3000:]
    assert b"Invalid loss, terminating training" in outs[0][0]
    with api(live_server.url, token) as c:
        nan_job = wait_for_job(c, "keras-nan", "diverged", ended=True)
        short_job = wait_for_job(c, "keras-short", "succeeded")
        nan_page, short_page = _page(c, nan_job), _page(c, short_job)
        html = c.get(f"/jobs/{nan_job['id']}").text

    assert nan_page["flags"] == ["diverged"]
    assert nan_job["exit_code"] == 0  # exited cleanly, and still no success: its status is diverged
    categories = {card["category"] for card in nan_page["error_cards"]}
    assert categories == {"nan_inf"}
    evidence = " ".join(card["evidence"] for card in nan_page["error_cards"])
    assert "Invalid loss" in evidence
    assert 'data-flag="diverged"' in html
    loss = next(ch for ch in nan_page["training"]["charts"] if ch["key"] == "loss")
    assert loss["lines"][0]["nonfinite"]  # the chart marks where the loss stopped being a number

    assert short_page["flags"] == ["ended early"]
    card = next(c for c in short_page["error_cards"] if c["subtype"] == "ended_early")
    assert card["title"] == "Ended early: 30 of 60 planned steps"


def _loop(server: str, token: str, job: str, losses: list[float], total_steps: int | None) -> None:
    mon = Monitor(job, server=server, token=token, total_steps=total_steps, flush_interval=0.05)
    mon.report_exit = True
    for n, loss in enumerate(losses, 1):
        with mon.step(n):
            pass
        mon.log({"loss": loss, "lr": 0.1}, step=n)
    mon.close()


def test_mon_log_nan_and_total_steps_flag_a_custom_loop(live_server, sessions, spool_dir):
    token = make_token(sessions)
    _loop(live_server.url, token, "loop-inf", [1.0, 0.5, 0.3, math.inf, math.nan, 0.2], total_steps=None)
    _loop(live_server.url, token, "loop-short", [1.0 / n for n in range(1, 11)], total_steps=100)
    _loop(live_server.url, token, "loop-whole", [1.0 / n for n in range(1, 11)], total_steps=10)
    with api(live_server.url, token) as c:
        inf_job = wait_for_job(c, "loop-inf", "diverged", ended=True)
        short_job, whole_job = (wait_for_job(c, name, "succeeded") for name in ("loop-short", "loop-whole"))
        inf_page, short_page, whole_page = (_page(c, j) for j in (inf_job, short_job, whole_job))
    assert inf_page["flags"] == ["diverged"]
    (card,) = inf_page["error_cards"]
    assert card["category"] == "nan_inf"
    assert card["evidence"].startswith("Invalid loss: loss is Inf at step 4")
    assert inf_job["errors"] == 1  # one divergence per job, however many bad values follow
    assert short_page["flags"] == ["ended early"]
    (card,) = short_page["error_cards"]
    assert card["title"] == "Ended early: 10 of 100 planned steps"
    assert whole_page["flags"] == [] and whole_page["error_cards"] == []
