"""Model FLOPs utilisation: what a chip can do, and what a Keras model asks of it per step.

Standard library only: the server imports the peak table to turn an accelerator type into FLOP/s,
and the Keras hook counts FLOPs from layer objects without importing TensorFlow here.

Peaks are dense bf16 FLOP/s per chip from Google's published figures. TPU7x (Ironwood) shows two
devices per chip to JAX. Accelerator types name TensorCores for v2-v4 and v5p (two per chip:
``v4-32`` is 16 chips) and chips for v5e and v6e (``v5litepod-16`` is 16 chips).

>>> peak_flops("v5litepod-16") == 16 * 197e12, chips("v4-32"), chips("v5p-8")
(True, 16, 4)
"""

from __future__ import annotations

import math
import re

# family: (bf16 FLOP/s per chip, TensorCores named per chip in the type, devices per chip)
CHIPS = {
    "v4": (275e12, 2, 1),
    "v5e": (197e12, 1, 1),
    "v5p": (459e12, 2, 1),
    "v6e": (918e12, 1, 1),
    "tpu7x": (2307e12, 1, 2),
}
ALIASES = {
    "v5litepod": "v5e",
    "v5lite": "v5e",
    "v6lite": "v6e",
    "v6litepod": "v6e",
    "7x": "tpu7x",
    "v7x": "tpu7x",
}
TYPE_RE = re.compile(r"^(?:tpu)?(v\d+[a-z]*|7x|tpu7x)(?:pod)?-(\d+)", re.IGNORECASE)
# A training step costs about three forward passes (forward, and twice that for the gradients);
# one multiply-accumulate is two FLOPs.
TRAIN_FACTOR = 3
FLOPS_PER_MAC = 2


def family(accelerator_type: str | None) -> str | None:
    """``v5litepod-16`` -> ``v5e``; None for a type the table does not know."""
    if not accelerator_type:
        return None
    text = accelerator_type.strip().lower()
    m = TYPE_RE.match(text)
    name = m.group(1) if m else text.split("-", 1)[0]
    name = ALIASES.get(name, name)
    return name if name in CHIPS else None


def chips(accelerator_type: str | None) -> int | None:
    """Chips in a slice of this accelerator type (None when it cannot tell)."""
    fam = family(accelerator_type)
    m = TYPE_RE.match((accelerator_type or "").strip().lower())
    if fam is None or m is None:
        return None
    per_chip = CHIPS[fam][1]
    return max(1, int(m.group(2)) // per_chip)


def peak_flops(accelerator_type: str | None) -> float | None:
    """bf16 peak FLOP/s of the whole slice, or None for an unknown type."""
    fam = family(accelerator_type)
    n = chips(accelerator_type)
    if fam is None or n is None:
        return None
    return CHIPS[fam][0] * n


def mfu(flops_per_step: float | None, step_time: float | None, peak: float | None) -> float | None:
    """FLOPs / step time / peak, or None when any is missing.

    >>> round(mfu(1e12, 0.5, 4e12), 3)
    0.5
    """
    if not flops_per_step or not step_time or not peak or step_time <= 0 or peak <= 0:
        return None
    return flops_per_step / step_time / peak


def layer_macs(layer) -> int:
    """Multiply-accumulates of one forward pass of one example through a Dense or Conv layer,
    from its kernel and output shapes (0 for layers without a kernel: their cost is small)."""
    kernel = getattr(layer, "kernel", None)
    if kernel is None:
        return 0
    try:
        kshape = [int(d) for d in kernel.shape]
    except (TypeError, ValueError):
        return 0
    positions = 1
    out = _output_shape(layer)
    if out is not None and len(out) > 2:
        # Dense over a sequence, or a convolution: the kernel is applied at every position.
        positions = math.prod(int(d) for d in out[1:-1] if d is not None)
    return math.prod(kshape) * positions


def keras_step_flops(layers, global_batch_size: int | None) -> float | None:
    """Model FLOPs of one training step: 2 FLOPs per MAC, 3 passes, the whole global batch."""
    if not global_batch_size:
        return None
    macs = sum(layer_macs(layer) for layer in layers)
    if not macs:
        return None
    return float(FLOPS_PER_MAC * TRAIN_FACTOR * macs * global_batch_size)


def _output_shape(layer):
    try:
        shape = layer.output.shape
    except Exception:
        return None
    try:
        return tuple(shape)
    except TypeError:
        return None
