"""Fitting the scorer: the learned vocabulary and leave-one-family-out on the failure zoo."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import pytest

from tpuwatch.server.triage import learn
from tpuwatch.server.triage.features import Evidence

ZOO = Path(__file__).parent / "zoo" / "captured.jsonl"
SUPPLEMENT = Path(__file__).parent / "supplement" / "captured.jsonl"
HAS_SKLEARN = importlib.util.find_spec("sklearn") is not None


def _example(family: str, label: str, words: str) -> learn.Example:
    return learn.Example(f"{family}/x", family, label, Evidence(), set(words.split()))


def test_a_word_one_family_uses_is_never_learned():
    examples = [
        _example("a", "checkpoint", "restore tensorstore zarr"),
        _example("b", "checkpoint", "restore metadata"),
        _example("c", "checkpoint", "restore manager"),
        _example("d", "oom", "allocate hbm"),
        _example("e", "oom", "allocate bytes"),
        _example("f", "oom", "allocate program"),
    ]
    learned = learn.vocabulary(examples)
    assert "checkpoint" in learned["restore"] and "oom" in learned["allocate"]
    assert "zarr" not in learned and "hbm" not in learned


@pytest.mark.skipif(not HAS_SKLEARN, reason="scikit-learn is in the dev extra")
def test_fitted_weights_never_count_against_a_category():
    examples = learn.prepare(learn.load(SUPPLEMENT)) if SUPPLEMENT.exists() else []
    if not examples:
        pytest.skip("no captured supplement")
    m = learn.fit(examples)
    assert all(w >= 0 for w in m.weights.values())


@pytest.mark.skipif(not HAS_SKLEARN, reason="scikit-learn is in the dev extra")
@pytest.mark.skipif(not ZOO.exists(), reason="the failure zoo is not captured (make zoo)")
def test_leave_one_family_out_on_the_zoo_meets_the_bar():
    from tests.triage.zoo.crossval import zoo_scores

    accuracy, precision = zoo_scores([ZOO, SUPPLEMENT], out=io.StringIO())
    assert accuracy >= 0.90 and precision >= 0.95, (accuracy, precision)
