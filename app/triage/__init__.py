"""Error triage: classify what a failing TPU job prints into cards with evidence and fixes.

The engine is pure standard library. Import from here::

    from tpuwatch.server.triage import classify_text, Classifier, perf_cards, JobMetrics, summary_line

``summary_line(text)`` is the line of an error that says what happened (not a framework's preamble,
never tpuwatch's own output): what alerts and titles should quote.

How a card is decided: the anchor scan (:mod:`.scan`) finds the few lines worth a look and the
signatures (:mod:`.knowledge`) match them; the error region is parsed for its structure
(:mod:`.structure`: exception classes and modules, frames, status codes, TF ops, XLA codes); each
category gets evidence of several kinds (:mod:`.features`), weighed by a small linear model fitted on
the failure zoo (:mod:`.scorer`, :mod:`.learn`); below the model's gate the answer is ``unknown``.

Where the first-week errors belong: a TPU held by another process and a TensorCore that halted
are ``connection_loss`` (subtypes ``tpu_busy``, ``tpu_halted``: the job has lost its TPU until the
other process or the runtime is dealt with); a shape mismatch rejected before any step ran (a
``dot_general`` or reshape that cannot fit) is ``compile_error/shape_mismatch``; the same mismatch
after steps had run is the data changing shape, ``dynamic_shape/partial_batch``.

Attributes load lazily so that ``tpuwatch --help`` does not compile the knowledge base.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Card": "tpuwatch.server.triage.cards",
    "Classifier": "tpuwatch.server.triage.engine",
    "classify_text": "tpuwatch.server.triage.engine",
    "JobMetrics": "tpuwatch.server.triage.perf",
    "perf_cards": "tpuwatch.server.triage.perf",
    "CATEGORIES": "tpuwatch.server.triage.knowledge",
    "summary_line": "tpuwatch.server.triage.summary",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'tpuwatch.server.triage' has no attribute {name!r}")
