"""The frameworks' own checks, read by the rule behind them rather than by their sentences.

Each case is real output from the failure zoo (``zoo/captured.jsonl``), chosen at the boundary a
rule of docs/triage-labels.md draws: a plain ``TypeError``/``ValueError`` about shapes raised by the
code of a framework that traces or builds the program is that program rejected before it ran
(``compile_error``); the same words about a mesh are the mesh's (``strategy_scope``); TensorFlow's
shape functions ("Shape must be rank 4 but is rank 2 for '{{node concat}}'") are a static
mismatch; a ``while_loop`` whose state grows is a dynamic shape, a ``scan`` whose carry changes is
not; a URL handed to Python's own ``open()`` is a path the runtime cannot open.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpuwatch.server.triage.engine import classify_text

ZOO = Path(__file__).with_name("zoo") / "captured.jsonl"
ROWS = {r["id"]: r for r in map(json.loads, ZOO.read_text().splitlines()) if r}

CASES = {
    # JAX's own check while it traced, behind the traceback-filtering notice, with no JAX words.
    "concatenate_rank_mismatch/jax_concat_sequence_and_pooled": "compile_error",
    "transpose_perm_rank/jax_transpose_perm_for_3d_on_4d": "compile_error",
    # A Keras layer's build, raised from keras/src/layers.
    "concatenate_rank_mismatch/keras_concatenate_layer_mismatch": "compile_error",
    # TensorFlow's shape functions inside "in user code:".
    "concatenate_rank_mismatch/tensorflow_concat_in_function": "compile_error",
    "transpose_perm_rank/tensorflow_transpose_perm_rank": "compile_error",
    # The same kind of check about a mesh: the mesh's set-up.
    "mesh_axis_not_in_mesh/keras_layout_map_unknown_axis": "strategy_scope",
    "mesh_shape_mismatch/jax_make_mesh_more_devices_than_present": "strategy_scope",
    # Loop state: a while_loop that appends grows with its trip count; a scan's carry was set up wrong.
    "growing_loop_state_xla/jax_while_loop_carry_grows": "dynamic_shape",
    "scan_carry_type_changes/flax_rnn_carry_shape": "compile_error",
    # Python's open() never opens a bucket.
    "python_open_on_bucket_path/flax_open_config_from_bucket": "local_filesystem",
}


def _category(text: str) -> str:
    cards = classify_text(text)
    return cards[0].category if cards else "unknown"


@pytest.mark.parametrize("key", sorted(CASES))
def test_a_frameworks_own_check_gets_the_label_of_its_rule(key):
    assert key in ROWS, f"{key} is not in the zoo (make zoo)"
    assert _category(ROWS[key]["text"]) == CASES[key]


def test_a_shape_known_only_from_the_data_is_not_a_static_check():
    # "Shapes used to initialize variables must be fully-defined (no `None` dimensions)": the layer
    # was built from a batch of unknown size; whatever it is, it is not a program whose pieces never fit.
    text = ROWS["data_dependent_size_jit_compile/keras_layer_reshape_from_data"]["text"]
    assert _category(text) != "compile_error"


def test_the_same_words_raised_by_the_users_own_code_name_nothing():
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 40, in <module>\n'
        "    check(batch)\n"
        '  File "/home/me/train.py", line 12, in check\n'
        '    raise ValueError(f"expected rank 3 input, got shape {x.shape}")\n'
        "ValueError: expected rank 3 input, got shape (8, 32)\n"
    )
    assert _category(text) == "unknown"


def test_a_growing_while_loop_card_says_so_and_a_scan_card_names_the_mismatch():
    grows = classify_text(ROWS["growing_loop_state_xla/jax_while_loop_carry_grows"]["text"])[0]
    scan = classify_text(ROWS["scan_carry_type_changes/flax_rnn_carry_shape"]["text"])[0]
    assert "so the shapes do not match" in grows.evidence or "carry" in grows.evidence
    assert "carry" in scan.evidence


# The frameworks' message templates (as their sources print them), in the shapes a log carries them.
TEMPLATES = [
    (
        "jax._src.traceback_util.UnfilteredStackTrace: jax.errors.TracerBoolConversionError: Attempted "
        "boolean conversion of traced array with shape bool[]..\n"
        "The error occurred while tracing the function solve at /home/u/solve.py:40 for jit.\n",
        "compile_error",
    ),
    (
        "jax.errors.TracerArrayConversionError: The numpy.ndarray conversion method __array__() was "
        "called on traced array with shape float32[4,4]\n",
        "compile_error",
    ),
    (
        "ERROR 07-07 18:02:56 [engine.py:519] ValueError: One of device_put args was given the sharding "
        "of NamedSharding(mesh=Mesh('data': 1, 'model': 8), spec=PartitionSpec('model', None)), which "
        "implies that the global size of its dimension 0 should be divisible by 8, but it is equal to 6\n",
        "strategy_scope",
    ),
    (
        "ValueError: Number of devices 1 must equal the product of mesh_shape (1, 8)\n",
        "strategy_scope",
    ),
    (
        "tensorflow.python.framework.errors_impl.InvalidArgumentError: cannot compute Mul as input "
        "#1(zero-based) was expected to be a float tensor but is a half tensor [Op:Mul]\n",
        "unsupported_dtype",
    ),
    (
        "ValueError: Failed to convert a NumPy array to a Tensor (Unsupported object type float).\n",
        "unsupported_dtype",
    ),
    (
        '  File "/env/lib/python3.8/site-packages/tensorflow/python/keras/engine/training.py", line 1110, '
        "in fit\n    raise ValueError('Expect x to be a non-empty array or dataset.')\n"
        "ValueError: Expect x to be a non-empty array or dataset.\n",
        "input_pipeline",
    ),
    (
        "No OpKernel was registered to support Op 'CudnnRNNCanonicalToParams' used by node "
        "lstm/CudnnRNNCanonicalToParams with these attrs: [T=DT_FLOAT, num_params=8]\n"
        "Registered devices: [CPU, XLA_CPU]\nRegistered kernels:\n  device='GPU'; T in [DT_FLOAT]\n",
        "unsupported_op",
    ),
    (
        "ValueError: Shape of `state/param_states/decoder/scale/v` in checkpoint (2048,) does not match "
        "expected (768,).\n",
        "checkpoint",
    ),
]


@pytest.mark.parametrize(
    ("text", "expected"), TEMPLATES, ids=[t[1] + str(i) for i, t in enumerate(TEMPLATES)]
)
def test_a_framework_template_gets_its_label(text, expected):
    assert _category(text) == expected
