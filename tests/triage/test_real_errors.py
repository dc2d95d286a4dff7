"""Real errors: run TensorFlow, Keras and JAX on the CPU, make them fail, classify what they print.

Each scenario runs in its own process (they all start at once, TensorFlow is slow to import) and its
stderr is classified as a user's log would be. The tests skip, with the reason, only when the
framework is not installed; CI installs both.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

from tpuwatch.server.triage.engine import classify_text

HAS_TF = importlib.util.find_spec("tensorflow") is not None
HAS_JAX = importlib.util.find_spec("jax") is not None
HAS_GRPC = importlib.util.find_spec("grpc") is not None

_FREE_PORT = """
import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
"""

# name -> (needs, expected category, program)
SCENARIOS = {
    "tf_oom": (
        "tensorflow",
        "oom",
        """
        import tensorflow as tf
        tf.zeros([2**40])
    """,
    ),
    "jax_oom": (
        "jax",
        "oom",
        """
        import jax.numpy as jnp
        jnp.zeros((2**40,), dtype=jnp.float32).block_until_ready()
    """,
    ),
    "tf_unsupported_op": (
        "tensorflow",
        "unsupported_op",
        """
        import tensorflow as tf
        @tf.function(jit_compile=True)
        def step(x):
            return tf.strings.as_string(x)
        step(tf.constant([1.0, 2.0]))
    """,
    ),
    "tf_nan": (
        "tensorflow",
        "nan_inf",
        """
        import tensorflow as tf
        loss = tf.constant([0.5, float("nan")])
        tf.debugging.check_numerics(loss, "loss is not finite")
    """,
    ),
    "tf_exhausted_dataset": (
        "tensorflow",
        "input_pipeline",
        """
        import tensorflow as tf
        it = iter(tf.data.Dataset.range(3).batch(2))
        for _ in range(3):
            it.get_next()
    """,
    ),
    "keras_other_strategy": (
        "tensorflow",
        "strategy_scope",
        """
        import numpy as np
        import tensorflow as tf
        first = tf.distribute.MirroredStrategy(["/cpu:0"])
        with first.scope():
            model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2)])
        second = tf.distribute.MirroredStrategy(["/cpu:0"])
        with second.scope():
            model.compile(optimizer="adam", loss="mse")
        model.fit(np.zeros((8, 4)), np.zeros((8, 2)), epochs=1, verbose=0)
    """,
    ),
    "tf_variable_outside_scope": (
        "tensorflow",
        "strategy_scope",
        """
        import tensorflow as tf
        weights = tf.Variable(1.0)  # made outside the strategy's scope
        strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
        with strategy.scope():
            optimizer = tf.keras.optimizers.Adam()
            optimizer.build([weights])
    """,
    ),
    "jax_dead_coordinator": (
        "jax",
        "connection_loss",
        _FREE_PORT
        + textwrap.dedent("""
        import jax
        jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}", num_processes=2,
                                   process_id=1, initialization_timeout=3)
    """),
    ),
    "grpc_dead_peer": (
        "grpc",
        "connection_loss",
        _FREE_PORT
        + textwrap.dedent("""
        import grpc
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        channel.unary_unary("/tensorflow.CoordinationService/Heartbeat")(b"", timeout=5)
    """),
    ),
}
# What an engineer hits in the first week: name -> (needs, category, subtype, what the evidence says).
FIRST_WEEK = {
    "jax_dot_general_mismatch": (
        "jax",
        "compile_error",
        "shape_mismatch",
        "dot_general requires contracting dimensions",
        """
        import jax, jax.numpy as jnp
        jax.jit(lambda x, w: x @ w)(jnp.ones((8, 128)), jnp.ones((256, 64)))
    """,
    ),
    "keras_reshape_on_first_step": (
        "tensorflow",
        "compile_error",
        "shape_mismatch",
        "reshape a tensor with 1024 elements",
        """
        import keras, numpy as np
        inputs = keras.Input((16,))
        x = keras.layers.Lambda(lambda t: keras.ops.reshape(t, (8, 64)))(inputs)
        model = keras.Model(inputs, keras.layers.Dense(1)(x))
        model.compile("sgd", "mse")
        model.fit(np.zeros((64, 16), "float32"), np.zeros((64, 1), "float32"), batch_size=64, verbose=0)
    """,
    ),
    "keras_reshape_on_last_partial_batch": (
        "tensorflow",
        "dynamic_shape",
        "partial_batch",
        "Input to reshape is a tensor with",
        """
        import keras, numpy as np
        inputs = keras.Input((16,), batch_size=32)
        x = keras.layers.Lambda(lambda t: keras.ops.reshape(t, (1, 512)))(inputs)
        model = keras.Model(inputs, keras.layers.Dense(32)(x))
        model.compile("sgd", "mse")
        model.fit(np.zeros((100, 16), "float32"), np.zeros((100, 32), "float32"), batch_size=32)
    """,
    ),
}
_AVAILABLE = {"tensorflow": HAS_TF, "jax": HAS_JAX, "grpc": HAS_GRPC}
_PROGRAMS = {name: (needs, program) for name, (needs, _, program) in SCENARIOS.items()} | {
    name: (needs, program) for name, (needs, *_, program) in FIRST_WEEK.items()
}


@pytest.fixture(scope="module")
def outputs() -> dict[str, str]:
    """Start every runnable scenario at once; return each one's stderr."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="1", JAX_PLATFORMS="cpu", CUDA_VISIBLE_DEVICES="")
    # The first-week scenarios are read as a terminal shows them (Keras' progress on stdout too).
    procs = {
        name: subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(program)],
            env=env,
            stdout=subprocess.PIPE if name in FIRST_WEEK else subprocess.DEVNULL,
            stderr=subprocess.STDOUT if name in FIRST_WEEK else subprocess.PIPE,
            text=True,
        )
        for name, (needs, program) in _PROGRAMS.items()
        if _AVAILABLE[needs]
    }
    out = {}
    for name, proc in procs.items():
        try:
            printed, err = proc.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            proc.kill()
            printed, err = proc.communicate()
        out[name] = err if err is not None else printed
    return out


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_real_error_is_classified_with_quoted_evidence(name, outputs):
    needs, category, _ = SCENARIOS[name]
    if not _AVAILABLE[needs]:
        pytest.skip(f"{needs} is not importable in this environment (CI installs it)")
    stderr = outputs[name]
    assert stderr.strip(), f"{name} printed nothing; did it fail at all?"
    cards = classify_text(stderr)
    assert cards, f"no card for {name}:\n{stderr[-2000:]}"
    card = cards[0]
    assert card.category == category, f"{name}: {card.to_dict()}\n{stderr[-2000:]}"
    lines = stderr.splitlines()
    assert card.evidence in lines[card.line - 1]
    assert card.confidence >= 0.7


def test_real_tf_oom_names_the_tensor_shape(outputs):
    if not HAS_TF:
        pytest.skip("tensorflow is not importable in this environment (CI installs it)")
    card = classify_text(outputs["tf_oom"])[0]
    assert card.facts["tensor_shape"] == "[1099511627776]"
    assert card.facts["user_frame"] == "<string>:3"


def test_real_unsupported_op_names_the_op(outputs):
    if not HAS_TF:
        pytest.skip("tensorflow is not importable in this environment (CI installs it)")
    card = classify_text(outputs["tf_unsupported_op"])[0]
    assert card.facts["op"] == "AsString"


@pytest.mark.parametrize("name", list(FIRST_WEEK))
def test_first_week_error_gets_a_card_quoting_what_happened(name, outputs):
    needs, category, subtype, said, _ = FIRST_WEEK[name]
    if not _AVAILABLE[needs]:
        pytest.skip(f"{needs} is not importable in this environment (CI installs it)")
    stderr = outputs[name]
    cards = classify_text(stderr)
    assert cards, f"no card for {name}:\n{stderr[-2000:]}"
    card = cards[0]
    assert (card.category, card.subtype) == (category, subtype), f"{card.to_dict()}\n{stderr[-2000:]}"
    assert said in card.evidence
    assert card.evidence in stderr.splitlines()[card.line - 1]
