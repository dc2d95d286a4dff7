"""Error triage: classify what a failing TPU job prints into cards with evidence and fixes.

The engine is pure standard library. Import from here::

    from app.triage import classify_text, Classifier, perf_cards, JobMetrics

Attributes load lazily so that ``tpuwatch --help`` does not compile the knowledge base.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "Card": "app.triage.cards",
    "Classifier": "app.triage.engine",
    "classify_text": "app.triage.engine",
    "JobMetrics": "app.triage.perf",
    "perf_cards": "app.triage.perf",
    "CATEGORIES": "app.triage.knowledge",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'app.triage' has no attribute {name!r}")
