"""Weighing the evidence: a small linear scorer with learned weights, in plain Python.

Each category's structural score is ``bias[c] + sum(weight[kind] * evidence[c][kind])`` over the
kinds other than the signatures (``rule``), which keep their hand-set confidence; the weights are
shared by all categories (a ``frame`` signal counts the same whether it points at checkpoints or at
the input pipeline), so a dozen numbers are learned, not a vocabulary per category. The learned
vocabulary (``learned`` words with their log-odds per category) is one of the kinds. The numbers
live in ``weights.json`` beside this module, written by :mod:`.learn` (``make triage-model``) from
the failure zoo; inference needs nothing but this file.

The structural probability is ``sigmoid(score)``, combined with the signature's confidence (see
:func:`score`); below the gate the answer is ``unknown``, which keeps named precision high on errors
unlike anything seen.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from .features import CATEGORIES, KINDS, Evidence

WEIGHTS_PATH = Path(__file__).with_name("weights.json")
RIVAL_DISCOUNT = 0.8


@dataclass(frozen=True)
class Model:
    weights: dict[str, float]  # kind -> weight
    bias: dict[str, float]  # category -> bias
    gate: float  # minimum probability for a card
    learned: dict[str, dict[str, float]]  # word -> category -> log-odds

    @classmethod
    def load(cls, path: Path = WEIGHTS_PATH) -> Model:
        data = json.loads(path.read_text())
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: dict) -> Model:
        return cls(
            weights={k: float(data["weights"].get(k, 0.0)) for k in KINDS},
            bias={c: float(data["bias"].get(c, 0.0)) for c in CATEGORIES},
            gate=float(data["gate"]),
            learned={w: dict(v) for w, v in data.get("learned", {}).items()},
        )

    def to_dict(self) -> dict:
        return {
            "weights": self.weights,
            "bias": self.bias,
            "gate": self.gate,
            "learned": {w: self.learned[w] for w in sorted(self.learned)},
        }


@dataclass(frozen=True)
class Scored:
    category: str
    score: float
    probability: float
    signals: list[tuple[str, float, str, int | None]]  # (kind, contribution, reason, line)


_MODEL: Model | None = None


def model() -> Model:
    """The shipped model (loaded once)."""
    global _MODEL
    if _MODEL is None:
        _MODEL = Model.load()
    return _MODEL


def score(ev: Evidence, m: Model | None = None) -> list[Scored]:
    """Every category with evidence, best first.

    The signatures' confidence ``r`` (hand-set per signature, see :mod:`.knowledge`) and the
    learned structural probability ``q`` combine as independent witnesses: ``1 - (1-r)(1-q)``. A
    sure signature alone still makes a card; several weak structural signals can make one too.
    """
    m = m or model()
    rules = {c: ev.values[c].get("rule", 0.0) for c in CATEGORIES}
    out = []
    for category in CATEGORIES:
        values = ev.values[category]
        if not values:
            continue
        rule = min(values.get("rule", 0.0), 0.99)
        # A specific signature for another category outweighs general evidence for this one: the
        # vocabulary of "ran out of memory in memory space vmem" is an OOM's, the signature a kernel's.
        rival = max((r for c, r in rules.items() if c != category), default=0.0)
        contributions = [(kind, m.weights[kind] * value) for kind, value in values.items() if kind != "rule"]
        total = m.bias[category] + sum(c for _, c in contributions)
        structural = _sigmoid(total) * (1.0 - RIVAL_DISCOUNT * rival) if contributions else 0.0
        probability = 1.0 - (1.0 - rule) * (1.0 - structural)
        if rule:
            contributions.append(("rule", rule))
        signals = [
            (kind, round(c, 2), *ev.reasons[(category, kind)])
            for kind, c in sorted(contributions, key=lambda kc: -kc[1])
            if c > 0
        ]
        out.append(Scored(category, total, probability, signals))
    out.sort(key=lambda s: -s.probability)
    return out


def decide(ev: Evidence, m: Model | None = None) -> tuple[Scored | None, list[Scored]]:
    """(the diagnosis or None for unknown, every scored category best first)."""
    m = m or model()
    ranked = score(ev, m)
    if ranked and ranked[0].probability >= m.gate:
        return ranked[0], ranked
    return None, ranked


def _sigmoid(x: float) -> float:
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))
