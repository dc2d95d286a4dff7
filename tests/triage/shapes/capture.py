#!/usr/bin/env python3
"""Capture real framework output in the shapes logs take, for tests/triage/test_log_shapes.py.

Each program below makes one real mistake with the installed JAX / TensorFlow / Keras on the CPU; what
it prints (stdout and stderr, interleaved as on a terminal) is kept in ``captured.jsonl`` with the
category the labelling guide gives it. The test reads the error as a log presents it: behind JAX's
traceback-filtering notice, in a chain of exceptions, inside Keras' ``Graph execution error:`` and
TF's ``{{node ...}}``, and re-tagged by a multi-process launcher. Run: ``python capture.py`` (about a
minute); the versions used are recorded in each row.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent

PROGRAMS = {
    # JAX >= 0.4.36 prints its filtering notice after the message, as a note.
    "jax_notice_after_message": (
        "compile_error",
        """
        import jax, jax.numpy as jnp
        from jax import lax
        @jax.jit
        def step(x):
            return lax.cond(x > 0, lambda v: v, lambda v: -v, x)
        step(jnp.ones(3))
    """,
    ),
    # A custom rule's error: JaxStackTraceBeforeTransformation, then "direct cause", then the error.
    "jax_chained_transformation": (
        "compile_error",
        """
        import jax
        @jax.custom_vjp
        def f(x, y):
            return x * y
        def fwd(x, y):
            return f(x, y), (x, y)
        def bwd(res, g):
            return (g * res[1],)
        f.defvjp(fwd, bwd)
        jax.grad(f)(1.0, 2.0)
    """,
    ),
    # The user's wrapper names nothing; the cause behind "direct cause" is the dataset running dry.
    "python_raise_from": (
        "input_pipeline",
        """
        import tensorflow as tf
        it = iter(tf.data.Dataset.range(2).batch(1))
        def train(steps):
            for step in range(steps):
                try:
                    batch = it.get_next()
                except tf.errors.OutOfRangeError as exc:
                    raise RuntimeError(f"training stopped at step {step}") from exc
        train(5)
    """,
    ),
    # A bug in the handler ("During handling of") hides the error that started it.
    "python_during_handling": (
        "strategy_scope",
        """
        import os
        os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
        import jax, jax.numpy as jnp
        a = jax.device_put(jnp.ones(3), jax.devices()[0])
        b = jax.device_put(jnp.ones(3), jax.devices()[1])
        try:
            jax.jit(lambda a, b: a + b)(a, b)
        except ValueError:
            log.exception("step failed")
    """,
    ),
    # Keras 3 on TensorFlow: "Graph execution error:" with the op's message and {{node ...}} below.
    "keras_graph_execution_error": (
        "nan_inf",
        """
        import numpy as np, tensorflow as tf, keras
        class Check(keras.layers.Layer):
            def call(self, x):
                return tf.debugging.check_numerics(x, "activations")
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2), Check()])
        model.compile("sgd", "mse")
        x = np.full((8, 4), np.nan, "float32")
        model.fit(x, np.ones((8, 2), "float32"), verbose=0)
    """,
    ),
    # A tf.function op error: the message, then [[{{node ...}}]] and [Op:__inference_...].
    "tf_node_wrapper": (
        "compile_error",
        """
        import tensorflow as tf
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def step(x):
            return tf.reduce_sum(tf.reshape(x, [3, 3]))
        step(tf.ones(8))
    """,
    ),
    # Keras 3 on the JAX backend: a layer built for another input width.
    "keras_on_jax": (
        "compile_error",
        """
        import os
        os.environ["KERAS_BACKEND"] = "jax"
        import keras, numpy as np
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
        model.compile("sgd", "mse")
        model.fit(np.ones((8, 5)), np.ones((8, 3)), verbose=0)
    """,
    ),
    # A tf.data map function of the wrong arity: the TypeError comes through tf.data's own frames.
    "tfdata_map_arity": (
        "input_pipeline",
        """
        import tensorflow as tf
        ds = tf.data.Dataset.from_tensor_slices((tf.ones((4, 2)), tf.ones(4)))
        ds = ds.map(lambda x: x * 2)
    """,
    ),
    # float16 overflow reported by the user's own loop, then a plain exit.
    "float16_loss_inf": (
        "nan_inf",
        """
        import numpy as np
        w = np.float16(300.0)
        for step in range(4):
            loss = (w * np.float16(step * 100)) ** 2
            print(f"step {step} loss {loss}")
            if not np.isfinite(loss):
                raise SystemExit(1)
    """,
    ),
}


def versions() -> dict:
    out = {"python": sys.version.split()[0]}
    for name in ("jax", "tensorflow", "keras"):
        try:
            out[name] = __import__(name).__version__
        except ImportError:
            pass
    return out


def main() -> int:
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "CUDA_VISIBLE_DEVICES": "", "PYTHONUNBUFFERED": "1"}
    rows = []
    for name, (label, program) in PROGRAMS.items():
        proc = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(program)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=180,
            env=env,
            cwd="/tmp",
        )
        if proc.returncode == 0:
            print(f"{name}: exited 0, the mistake no longer fails", file=sys.stderr)
            return 1
        rows.append({"id": name, "label": label, "exit_code": proc.returncode, "text": proc.stdout})
        print(name, proc.returncode)
    meta = versions()
    with open(HERE / "captured.jsonl", "w") as fh:
        for row in rows:
            fh.write(json.dumps({**row, "versions": meta}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
