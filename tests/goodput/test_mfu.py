"""MFU of real Keras and JAX training on the CPU, with a given peak, through the sidecar into the
server: the server's MFU is FLOPs / wall time of a step / peak within 1%, where the FLOPs are
counted by hand (Keras) or by XLA's cost analysis (JAX), and the wall time of a step is the mean of
the stored steps' durations and input waits (the first, compiling, step left out): the FLOPs the
chips did over the time they took, not over the median step alone."""

from __future__ import annotations

import json
import statistics

from tests.agent.test_sidecar import sidecar
from tests.conftest import make_token
from tests.helpers import api, wait_for_job

PEAK = 2.0e11  # FLOP/s given for the CPU (no accelerator type to look up)

KERAS = """
import numpy as np
import tensorflow as tf
from tpuwatch.keras import TPUWatchCallback

rng = np.random.default_rng(0)
x = rng.random((4096, 256), dtype=np.float32)
y = rng.random((4096, 10), dtype=np.float32)
model = tf.keras.Sequential([
    tf.keras.Input((256,)),
    tf.keras.layers.Dense(512, activation="relu"),
    tf.keras.layers.Dense(10),
])
model.compile(optimizer="sgd", loss="mse")
model.fit(x, y, batch_size=128, epochs=3, verbose=0, callbacks=[TPUWatchCallback()])
"""
# 2 FLOPs per multiply-accumulate, 3 passes (forward, two for the gradients), the whole batch.
KERAS_FLOPS = 2 * 3 * (256 * 512 + 512 * 10) * 128

JAX = """
import json, sys
import jax, jax.numpy as jnp
import tpuwatch
from tpuwatch.jax import step_flops

@jax.jit
def train_step(params, x, y):
    def loss(p):
        h = jax.nn.relu(x @ p["w1"])
        return jnp.mean((h @ p["w2"] - y) ** 2)
    grads = jax.grad(loss)(params)
    return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads)

k = jax.random.split(jax.random.key(0), 4)
params = {"w1": jax.random.normal(k[0], (256, 512)), "w2": jax.random.normal(k[1], (512, 10))}
x, y = jax.random.normal(k[2], (128, 256)), jax.random.normal(k[3], (128, 10))
mon = tpuwatch.init()
for i in range(150):
    with mon.step():
        params = train_step(params, x, y)
        jax.block_until_ready(params)
    if i == 0:
        flops = step_flops(train_step, params, x, y)
        mon.model_info(flops_per_step=flops)
        print(json.dumps({"flops": train_step.lower(params, x, y).compile().cost_analysis()["flops"]}))
mon.close()
"""


def _mfu_and_steps(c, job):
    goodput = c.get(f"/api/v1/jobs/{job['id']}/goodput").json()
    steps = c.get(f"/api/v1/jobs/{job['id']}/steps", params={"points": 5000}).json()
    walls: dict[float, float] = {}
    for s in steps["series"]:
        for x, y in zip(s["x"], s["y"], strict=True):
            if x != min(s["x"]):
                walls[x] = walls.get(x, 0.0) + y  # step time + input wait
    return goodput["mfu"], statistics.fmean(walls.values())


def _run(live_server, sessions, tmp_path, name, script):
    token = make_token(sessions)
    proc = sidecar(
        live_server.url, token, name, script, tmp_path, "--no-tpu-metrics", "--peak-flops", str(PEAK)
    )
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 0, err.decode()[-3000:]
    with api(live_server.url, token) as c:
        job = wait_for_job(c, name, "succeeded", timeout=30)
        mfu, step_time = _mfu_and_steps(c, job)
    return out, mfu, step_time


def test_keras_mfu_is_counted_flops_over_wall_time_per_step_over_the_given_peak(
    live_server, sessions, spool_dir, tmp_path
):
    _, mfu, step_time = _run(live_server, sessions, tmp_path, "keras-mfu", KERAS)
    assert mfu["flops_per_step"] == KERAS_FLOPS
    assert mfu["peak_flops"] == PEAK and mfu["peak_source"] == "given"
    want = KERAS_FLOPS / step_time / PEAK
    assert abs(mfu["mfu"] - want) <= 0.01 * want, (mfu, want)


def test_jax_mfu_is_xla_cost_analysis_over_wall_time_per_step_over_the_given_peak(
    live_server, sessions, spool_dir, tmp_path
):
    out, mfu, step_time = _run(live_server, sessions, tmp_path, "jax-mfu", JAX)
    flops = json.loads(out.decode().strip().splitlines()[-1])["flops"]
    # XLA counts at least the forward matmuls and the weight gradients (x needs no gradient).
    assert flops >= 2 * 2 * (256 * 512 + 512 * 10) * 128
    assert mfu["flops_per_step"] == flops
    want = flops / step_time / PEAK
    assert abs(mfu["mfu"] - want) <= 0.01 * want, (mfu, want)
