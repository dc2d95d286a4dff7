"""The training loop's own failures: ``input_pipeline``, ``nan_inf``; and ``unknown``.

Sources: the Cloud TPU troubleshooting guide (errors in the middle of training: a dataset without
``repeat()``, failures in the input function), TensorFlow's check_numerics and NaN hooks, Keras'
TerminateOnNaN, JAX's debug_nans mode and PyTorch's anomaly detection.
"""

from __future__ import annotations

import re

from .base import Category, Subtype, first_group, sig

_NODE = re.compile(r"\{\{node (\w+)\}\}|\[Op:(\w+)\]|node (\w+)")


def _input_facts(lines: list[str]) -> dict:
    for line in lines:
        m = _NODE.search(line)
        if m:
            return {"node": next(g for g in m.groups() if g)}
    return {}


INPUT_PIPELINE = Category(
    id="input_pipeline",
    title="Input pipeline ran dry or failed",
    explanation=(
        "The training loop asked the dataset for another batch and got none (the data ran out "
        "before the requested number of steps) or the input function itself raised."
    ),
    fixes=(
        "Repeat the training dataset (dataset.repeat()) and let steps_per_epoch / max_steps "
        "decide when training stops.",
        "Make steps_per_epoch x epochs match the data: steps_per_epoch = examples // "
        "global_batch_size when the dataset is not repeated.",
        "Give validation its own step count (validation_steps) that the validation set can fill.",
        "Run the input function alone on the host (iterate a few batches outside training) to "
        "surface errors raised inside map functions or readers.",
    ),
    signatures=(
        sig(r"Your input ran out of data", 0.95, "ran out of data", subtype="exhausted"),
        # The rest of Keras' message, when the log wrapped it onto its own line.
        sig(
            r"generate at least `?steps_per_epoch \* epochs`? batches",
            0.9,
            "steps_per_epoch * epochs",
            subtype="exhausted",
        ),
        sig(r"\bEnd of [Ss]equence\b", 0.92, "End of sequence", "End of Sequence", subtype="exhausted"),
        sig(r"\bOutOfRangeError\b|\bOut of range: ", 0.88, "OutOfRange", "Out of range", subtype="exhausted"),
        sig(
            r"Error in user-defined function passed to \w+ transformation",
            0.82,
            "user-defined function",
            subtype="input_fn",
        ),
        # TFRecordReader on a damaged or cut file.
        sig(r"(?:corrupted|truncated) record at \d+", 0.88, "record at", subtype="input_fn"),
        # Input data that does not decode (a damaged image file in the dataset).
        sig(
            r"Invalid (?:JPEG|PNG) data|jpeg::Uncompress failed|Expected image \(JPEG, PNG, or GIF\)",
            0.8,
            "Invalid JPEG",
            "Invalid PNG",
            "Uncompress failed",
            "Expected image",
            subtype="input_fn",
        ),
        sig(
            r"DataLoader worker \(pids?\(?s?\)? ?[\d, ]+\)? (?:is killed|exited unexpectedly)",
            0.82,
            "DataLoader worker",
            subtype="input_fn",
        ),
    ),
    subtypes={
        "exhausted": Subtype("Dataset exhausted before training finished"),
        "input_fn": Subtype(
            "The input function raised an error",
            (
                "Read the error inside the map / reader function first: it is the root cause; the "
                "training step only reports that no batch arrived.",
            ),
        ),
    },
    facts=_input_facts,
    headline=lambda facts: facts.get("node", ""),
)


_NAN_MSG = re.compile(r"(?:CheckNumerics[^:]*\}\} |Error: )?([^:\n]{3,120}?) ?: Tensor had (?:NaN|Inf)")
_NAN_WHERE = re.compile(r"invalid value \((nan|inf)\) encountered in (\S+)")


def _nan_facts(lines: list[str]) -> dict:
    facts: dict = {}
    message = first_group([_NAN_MSG], lines)
    if message:
        facts["message"] = message.strip()
    for line in lines:
        m = _NAN_WHERE.search(line)
        if m:
            facts["value"], facts["where"] = m.group(1), m.group(2)
            break
    return facts


NAN_INF = Category(
    id="nan_inf",
    title="Loss or tensor became NaN / Inf",
    explanation=(
        "A value in the loss, gradients or activations overflowed or became undefined (NaN or "
        "Inf), so training was stopped; a too-high learning rate, bad inputs or an unstable op "
        "such as log(0) or division by zero are the usual causes."
    ),
    fixes=(
        "Lower the learning rate (or lengthen warm-up) and clip gradients by global norm.",
        "Check the input data for NaN / Inf and for labels outside the expected range.",
        "Guard unstable ops: add an epsilon to log, sqrt and divisions, use numerically stable "
        "losses (from_logits=True) and keep softmax / normalisation in float32.",
        "Find the first bad op: tf.debugging.enable_check_numerics() in TensorFlow, "
        "jax.config.update('jax_debug_nans', True) in JAX, "
        "torch.autograd.set_detect_anomaly(True) in PyTorch.",
        "Restart from the last good checkpoint; divergence with mixed precision often needs loss "
        "scaling or float32 in the unstable layer.",
    ),
    signatures=(
        sig(r"Tensor had (?:NaN|Inf) values", 0.97, "Tensor had"),
        sig(
            r"NaN loss during training|Model diverged with loss = NaN|Invalid loss, terminating "
            r"training",
            0.96,
            "NaN loss",
            "diverged",
            "Invalid loss",
        ),
        sig(r"invalid value \((?:nan|inf)\) encountered in", 0.95, "invalid value ("),
        sig(r"returned nan values in its \d+\w* output", 0.92, "returned nan"),
        sig(r"\bCheckNumerics\b|check_numerics", 0.8, "CheckNumerics", "check_numerics"),
        # Trainers that stop on a bad loss: "Loss became infinite or NaN", "loss ... is nan".
        sig(
            r"\b[Ll]oss\b.{0,60}\b(?:is|became|becomes|was) (?:infinite|inf|Inf|nan|NaN)\b",
            0.88,
            "oss",
        ),
        # Keras' progress line "- loss: nan": the loss itself, not a metric's name, is NaN.
        sig(r"(?:^|\s|-)loss: (?:nan|inf)\b", 0.8, "oss: nan", "oss: inf"),
        sig(
            r"\bis (?:NaN|Inf|inf or nan)\b|\bloss\W{1,4}(?:nan|NaN|inf)\b",
            0.62,
            "nan",
            "NaN",
            "is Inf",
            "is inf",
        ),
    ),
    subtypes={},
    facts=_nan_facts,
    headline=lambda facts: facts.get("message") or facts.get("where", ""),
)


UNKNOWN = Category(
    id="unknown",
    title="Unrecognised error",
    explanation=(
        "No known signature matched this error; it is grouped with errors of the same shape so "
        "recurring ones stand out."
    ),
    fixes=(
        "Read the first error in the log (not the last): later errors are often consequences.",
        "Reduce the job (small model, in-memory data, one host, no callbacks) until the error "
        "disappears to find the part that triggers it.",
        "Search the framework's issue tracker for the error line with numbers and paths removed.",
    ),
)
