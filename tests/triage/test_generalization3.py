"""Rules added after scoring a third untouched set of public error output.

The fixtures are written for this file: the wording each framework prints (checked against its
source), with invented names, paths and numbers. Each rule also has a near miss that must not be
named.
"""

from __future__ import annotations

import pytest

from tests.helpers import primary_category
from tpuwatch.server.triage.engine import classify_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # TF collective ops abort with a capitalised "End of Sequence" when the dataset runs dry.
        (
            "W0101 00:00:01.000 collective_ops.cc] StartAbort Out of range: End of Sequence\n",
            "input_pipeline",
        ),
        ("2024-01-01 W op_kernel.cc:1] Out of range: End of sequence\n", "input_pipeline"),
        # Keras progress bars once the loss diverged.
        (
            "Epoch 3/9\n120/120 [====] - 4s 31ms/step - loss: nan - accuracy: 0.1000 - val_loss: nan\n",
            "nan_inf",
        ),
        # torch_xla's metrics analysis: an ATen op without an XLA lowering.
        (
            "pt-xla-profiler: Op(s) not lowered: aten::my_rare_op,  Please open a GitHub issue with the "
            "above op lowering requests.\n",
            "unsupported_op",
        ),
        # torch.load of tensors that were saved on an XLA device.
        (
            "Exception in device=TPU:2: don't know how to restore data location of torch.FloatStorage "
            "(tagged with xla:1)\n",
            "checkpoint",
        ),
        # The tail of TF's slot-variable message on a line of its own.
        (
            "ValueError: ... (<tf.Variable 'dense_7/kernel:0' shape=(4, 4) dtype=float32>). Make sure the "
            "slot variables are created under the same strategy scope.\n",
            "strategy_scope",
        ),
    ],
)
def test_new_rules(text: str, expected: str) -> None:
    assert primary_category(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        # Ordinary progress output that happens to contain the words.
        "Epoch 2/9\n120/120 [====] - 4s 31ms/step - loss: 0.4312 - nan_count: 0\n",
        "INFO: value out of range for display, clipping to 255\n",
    ],
)
def test_near_misses_stay_unknown(text: str) -> None:
    assert primary_category(text) == "unknown"


def test_checkpoint_error_still_named() -> None:
    text = "OSError: Failed to write checkpoint to gs://bucket-a/ckpt/step_100: quota exceeded\n"
    assert primary_category(text) == "checkpoint"


def test_missing_scheme_is_a_file_system_problem_not_a_checkpoint() -> None:
    # A build without GCS support: the storage scheme is the problem, even when the bucket's name
    # contains "checkpoints".
    text = (
        "UnimplementedError: File system scheme 'gs' not implemented (file: "
        "'gs://my-model-checkpoints/run7/encoder')\n"
    )
    card = classify_text(text)[0]
    assert (card.category, card.subtype) == ("local_filesystem", "scheme")


def test_local_scheme_still_local_filesystem() -> None:
    text = (
        "UnimplementedError: File system scheme '[local]' not implemented (file: "
        "'/content/checkpoints/model.ckpt-0_temp')\n"
    )
    assert primary_category(text) == "local_filesystem"
