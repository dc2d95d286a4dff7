"""Training metrics in Chromium: a real Keras fit (the callback) and a real JAX loop (``mon.log``)
under `tpuwatch agent run`, their loss and metrics drawn on the job page, loss first."""

from __future__ import annotations

import pytest

from tests.agent.test_sidecar import sidecar
from tests.conftest import make_token
from tests.helpers import api, wait_for_job
from tpuwatch.server.db import make_engine, make_sessionmaker

KERAS = """
import numpy as np
import tensorflow as tf
from tpuwatch.keras import TPUWatchCallback

rng = np.random.default_rng(0)
x = rng.random((256, 8), dtype=np.float32)
y = x.sum(axis=1, keepdims=True)
model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16, activation="relu"),
                             tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", metrics=["mae"])
model.fit(x, y, batch_size=16, epochs=3, validation_split=0.25, verbose=0, callbacks=[TPUWatchCallback()])
"""

JAX = """
import jax
import jax.numpy as jnp
import tpuwatch

mon = tpuwatch.init()

@jax.jit
def train_step(w, x, y):
    loss, g = jax.value_and_grad(lambda w: jnp.mean((x @ w - y) ** 2))(w)
    return w - 0.05 * g, loss

x = jax.random.normal(jax.random.PRNGKey(0), (64, 4))
y = x @ jnp.arange(4.0).reshape(4, 1)
w = jnp.zeros((4, 1))
for n in range(1, 41):
    with mon.step(n):
        w, loss = train_step(w, x, y)
    mon.log({"train/loss": loss, "train/lr": 0.05}, step=n)
mon.close()
"""


def _run_both(server, token, tmp_path):
    keras = sidecar(server.url, token, "keras-curves", KERAS, tmp_path, "--no-tpu-metrics")
    jax = sidecar(server.url, token, "jax-curves", JAX, tmp_path, "--no-tpu-metrics")
    for proc in (keras, jax):
        _, err = proc.communicate(timeout=180)
        assert proc.returncode == 0, err.decode()[-3000:]
    with api(server.url, token) as c:
        return wait_for_job(c, "keras-curves", "succeeded"), wait_for_job(c, "jax-curves", "succeeded")


def _chart(page, key: str) -> str:
    return f".training-chart[data-key='{key}']"


def test_keras_and_jax_runs_have_their_loss_and_metrics_drawn(sqlite_server, page, tmp_path, spool_dir):
    engine = make_engine(sqlite_server.settings.database_url)
    token = make_token(make_sessionmaker(engine), project="curves")
    engine.dispose()
    keras_job, jax_job = _run_both(sqlite_server, token, tmp_path)

    page.goto(sqlite_server.url + "/login")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_url(sqlite_server.url + "/")

    page.goto(f"{sqlite_server.url}/jobs/{keras_job['id']}")
    loss = _chart(page, "loss")
    page.wait_for_function(f'() => document.querySelector("{loss}")?.data?.length === 4')
    keys = page.eval_on_selector_all(".training-chart", "els => els.map(e => e.dataset.key)")
    assert keys[0] == "loss" and "mae" in keys
    # Each line twice: its raw values (faint, no legend) behind the smoothed line.
    traces = page.evaluate(f'() => document.querySelector("{loss}").data.map(t => [t.name, t.meta.raw])')
    assert traces == [["loss", True], ["loss", False], ["val_loss", True], ["val_loss", False]]
    xs = page.evaluate(f'() => document.querySelector("{loss}").data[0].x')
    assert max(xs) == 36  # 3 epochs of 12 steps, on a step axis
    assert page.locator(f"{loss} .scatterlayer .trace").count() == 4

    # Smoothing rewrites the smoothed line from the raw one; each chart has its own log switch.
    raw = page.evaluate(f'() => document.querySelector("{loss}").data[0].y.slice()')
    page.locator("#training-smoothing").fill("0.9")
    page.wait_for_function(f"() => document.querySelector(\"{loss}\").dataset.smoothing === '0.9'")
    smoothed = page.evaluate(f'() => document.querySelector("{loss}").data[1].y')
    # A debiased moving average starts at the first raw value (up to rounding) and then lags it.
    assert smoothed[0] == pytest.approx(raw[0], rel=1e-9) and smoothed[-1] != raw[-1]
    assert page.evaluate(f'() => document.querySelector("{loss}").data[0].y') == raw  # raw stays raw
    page.check(".chart-log input[data-key='loss']")
    page.wait_for_function(f"() => document.querySelector(\"{loss}\").layout.yaxis.type === 'log'")
    mae = _chart(page, "mae")
    assert page.evaluate(f'() => document.querySelector("{mae}").layout.yaxis.type') != "log"  # per chart

    page.goto(f"{sqlite_server.url}/jobs/{jax_job['id']}")
    jax_loss = _chart(page, "loss")  # train/loss: a split's twins share one chart, named for the metric
    page.wait_for_function(f'() => document.querySelector("{jax_loss}")?.data?.length === 2')
    keys = page.eval_on_selector_all(".training-chart", "els => els.map(e => e.dataset.key)")
    assert keys == ["loss", "lr"]
    trace = page.evaluate(f'() => document.querySelector("{jax_loss}").data[0]')
    assert trace["name"] == "train/loss" and trace["x"] == list(range(1, 41))
    assert trace["y"][-1] < trace["y"][0] / 10  # it learned: the curve is the real loss
    assert page.dialogs == []
