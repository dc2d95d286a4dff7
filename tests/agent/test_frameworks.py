"""Real Keras and JAX training on the CPU under `tpuwatch agent run`, stored by a real server.

TensorFlow takes seconds to import, so these are few and small."""

from __future__ import annotations

import pytest

from tests.agent.test_sidecar import sidecar
from tests.conftest import make_token
from tests.helpers import api, wait_for_job

KERAS_SCRIPT = """
import numpy as np
import tensorflow as tf
from tpuwatch.keras import TPUWatchCallback

rng = np.random.default_rng(0)
x = rng.random((512, 16), dtype=np.float32)
y = rng.random((512, 1), dtype=np.float32)
model = tf.keras.Sequential(
    [tf.keras.Input((16,)), tf.keras.layers.Dense(64, activation="relu"), tf.keras.layers.Dense(1)]
)
model.compile(optimizer="sgd", loss="mse", metrics=["mae"], steps_per_execution={spe})
model.fit(x, y, batch_size=16, epochs=2, verbose=0, callbacks=[TPUWatchCallback()])
print("fit done")
"""


@pytest.mark.parametrize("spe", [1, 4, 5])
def test_keras_fit_of_64_steps_stores_exactly_64_steps(live_server, sessions, spool_dir, tmp_path, spe):
    token = make_token(sessions)
    job_name = f"keras-spe{spe}"
    proc = sidecar(
        live_server.url, token, job_name, KERAS_SCRIPT.format(spe=spe), tmp_path, "--no-tpu-metrics"
    )
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err.decode()[-3000:]
    assert out.endswith(b"fit done\n")
    with api(live_server.url, token) as c:
        job = wait_for_job(c, job_name, "succeeded", timeout=30)
        steps = c.get(f"/api/v1/jobs/{job['id']}/steps").json()
        events = c.get(f"/api/v1/jobs/{job['id']}/events").json()["events"]
        metrics = c.get(f"/api/v1/jobs/{job['id']}/metrics", params={"name": "keras.loss"}).json()
    assert job["steps"] == 64
    assert job["last_step"] == 64
    step_time = next(s for s in steps["series"] if s["metric"] == "step_time")
    assert min(step_time["x"]) == 1 and max(step_time["x"]) == 64
    assert all(y > 0 for y in step_time["y"])
    info = [e for e in events if e["kind"] == "model_info"]
    assert len(info) == 1
    data = info[0]["data"]
    assert data["global_batch_size"] == 16
    assert data["replicas"] == 1
    assert data["steps_per_execution"] == spe
    assert data["layer_widths"] == [64, 1]
    epochs = [e["data"] for e in events if e["kind"] == "epoch"]
    assert [(e["epoch"], e["phase"]) for e in epochs] == [(0, "begin"), (0, "end"), (1, "begin"), (1, "end")]
    assert epochs[1]["step"] == 32 and epochs[3]["step"] == 64
    assert "mae" in epochs[3]["logs"]
    assert "keras.mae" in metrics["names"]
    assert metrics["series"] and all(v > 0 for v in metrics["series"][0]["value"])


JAX_SCRIPT = """
import time
import jax
import jax.numpy as jnp
import tpuwatch
from tpuwatch.jax import JaxMemorySampler

mon = tpuwatch.init()
memory = JaxMemorySampler(mon, every=0.0)

@jax.jit
def train_step(w, x):
    return w - 0.01 * jax.grad(lambda w: jnp.mean((x @ w) ** 2))(w)

def batches():
    for i in range(50):
        time.sleep(0.004)  # the input pipeline is the slow part
        yield jnp.full((8, 4), float(i))

w = jnp.ones((4, 1))
for x in mon.wrap(batches()):
    with mon.step():
        w = train_step(w, x).block_until_ready()
    memory.sample()
mon.close()
print("jax done")
"""


def test_jax_loop_with_wrap_stores_steps_and_input_waits(live_server, sessions, spool_dir, tmp_path):
    token = make_token(sessions)
    proc = sidecar(live_server.url, token, "jax-loop", JAX_SCRIPT, tmp_path, "--no-tpu-metrics")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()[-3000:]
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "jax-loop", "succeeded", timeout=30)
        steps = c.get(f"/api/v1/jobs/{job['id']}/steps").json()
    assert job["steps"] == 50
    assert job["input_wait_p50"] >= 0.004
    waits = next(s for s in steps["series"] if s["metric"] == "input_wait")
    assert min(waits["y"]) >= 0.004
    # On the CPU memory_stats() is None: said once, not per step.
    assert err.decode().count("jax memory_stats: not available") == 1
