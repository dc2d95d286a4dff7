"""The triage knowledge base: every category with its signatures, explanation and fixes.

>>> from tpuwatch.server.triage.knowledge import CATEGORIES
>>> CATEGORIES["oom"].fixes[0]
'Lower the per-core batch size (halve it, keep it a multiple of 8) and retry.'
"""

from __future__ import annotations

from .base import Category, Signature, Subtype, sig
from .memory import COMPILE_ERROR, OOM
from .runtime import CONNECTION_LOSS, STRATEGY_SCOPE
from .shapes import DYNAMIC_SHAPE, UNSUPPORTED_DTYPE, UNSUPPORTED_OP
from .storage import CHECKPOINT, LOCAL_FILESYSTEM
from .training import INPUT_PIPELINE, NAN_INF, UNKNOWN

# Stable ids, in the order DESIGN.md lists them.
CATEGORIES: dict[str, Category] = {
    c.id: c
    for c in (
        OOM,
        DYNAMIC_SHAPE,
        UNSUPPORTED_OP,
        UNSUPPORTED_DTYPE,
        CONNECTION_LOSS,
        LOCAL_FILESYSTEM,
        STRATEGY_SCOPE,
        INPUT_PIPELINE,
        CHECKPOINT,
        COMPILE_ERROR,
        NAN_INF,
        UNKNOWN,
    )
}

__all__ = ["CATEGORIES", "Category", "Signature", "Subtype", "sig"]
