"""Weighing the evidence: a small linear scorer with learned weights, in plain Python.

Each category's structural score is ``bias[c] + sum(weight[kind] * evidence[c][kind])`` over the
kinds other than the signatures (``rule``), which keep their hand-set confidence; the weights are
shared by all categories (a ``frame`` signal counts the same whether it points at checkpoints or at
the input pipeline), so a dozen numbers are learned, not a vocabulary per category. The learned
vocabulary (``learned`` words with their log-odds per category) is one of the kinds. The numbers
live in ``weights.json`` beside this module, written by :mod:`.learn` (``make triage-model``) from
the failure zoo; inference needs nothing but this file.

The structural probability is ``sigmoid(score)``, combined with the signature's confidence (see
:func:`score`). A card is a claim, and :func:`decide` names a category only when three things hold,
else the answer is an honest ``unknown``:

- its probability reaches the gate;
- it leads the runner-up by the margin (two categories nearly tied means the evidence is not
  specific enough to say which);
- its evidence is *corroborated* (:func:`corroborated`): a signature, one specific anchor (a class,
  op, XLA code, library frame or phrase that belongs to the category), or at least two independent
  witnesses (the exception, where it was raised, what the message says) agreeing. Vocabulary alone
  never names a category. Some categories need an anchor whatever else agrees: a compile error must
  show something of the compiler's own (a signature, an XLA code, a compiler op or frame, a shape
  check, a phrase like ``RET_CHECK``), since "XLA", "jit" and ``XlaRuntimeError`` appear in nearly
  every JAX and TF error.

The gate and the margin are chosen by leave-one-family-out cross-validation on the zoo (see
:mod:`.learn`), never on held-out errors.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from .features import CATEGORIES, KINDS, Evidence

WEIGHTS_PATH = Path(__file__).with_name("weights.json")
RIVAL_DISCOUNT = 0.8
# What counts as an anchor: one piece of structure this strong for the category.
ANCHOR_RULE = 0.5
ANCHOR_RULE_STRICT = 0.8  # a signature for specific wording (generic ones, "error ... checkpoint", are lower)
ANCHOR_STRUCTURE = 0.7  # exc, node, xla, shape_*, frame, inner, module, status
ANCHOR_WORD = 0.6  # the strongest single phrase of the category's vocabulary
# Independent witnesses: which kinds testify together, and how strong each must be to count.
WITNESSES = (
    (("exc", "module", "status"), 0.5),
    (("frame", "inner", "node", "user"), 0.5),
    (("words",), 0.8),  # the category's own vocabulary; learned words weigh in the score only
    (("shape_static", "shape_late", "xla"), 0.5),
)
VOCABULARY = frozenset({"words", "learned", "user"})
STRUCTURE_FLOOR = 0.3
VOCABULARY_GATE = 0.9  # a category named on its vocabulary alone needs this probability
# Categories whose generic evidence is everywhere in the stack: they need an anchor of their own.
NEEDS_ANCHOR = frozenset({"compile_error"})


@dataclass(frozen=True)
class Model:
    weights: dict[str, float]  # kind -> weight
    bias: dict[str, float]  # category -> bias
    gate: float  # minimum probability for a card
    learned: dict[str, dict[str, float]]  # word -> category -> log-odds
    margin: float = 0.0  # minimum lead of the best category's probability over the runner-up's

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
            margin=float(data.get("margin", 0.0)),
        )

    def to_dict(self) -> dict:
        return {
            "weights": self.weights,
            "bias": self.bias,
            "gate": self.gate,
            "margin": self.margin,
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
    if ranked and named(ev, ranked, m.gate, m.margin):
        return ranked[0], ranked
    return None, ranked


def named(ev: Evidence, ranked: list[Scored], gate: float, margin: float) -> bool:
    """Whether the best of ``ranked`` may be named: sure enough, clearly ahead, corroborated."""
    if not ranked or ranked[0].probability < gate:
        return False
    runner_up = ranked[1].probability if len(ranked) > 1 else 0.0
    if ranked[0].probability - runner_up < margin:
        return False
    return may_name(ev, ranked[0].category, ranked[0].probability)


def may_name(ev: Evidence, category: str, probability: float) -> bool:
    """Corroborated, and named on more than words unless the words are very sure (see
    :func:`structural`)."""
    if not corroborated(ev, category):
        return False
    return probability >= VOCABULARY_GATE or structural(ev, category)


def anchored(ev: Evidence, category: str, strict: bool = False) -> bool:
    """One piece of evidence specific enough to stand for the category on its own; ``strict``: a
    specific signature or structure only (no phrase of the vocabulary, no generic signature)."""
    values = ev.values.get(category, {})
    if values.get("rule", 0.0) >= (ANCHOR_RULE_STRICT if strict else ANCHOR_RULE):
        return True
    if not strict and ev.word_peak.get(category, 0.0) >= ANCHOR_WORD:
        return True
    structural = ("exc", "module", "status", "node", "xla", "shape_static", "shape_late", "frame", "inner")
    return any(values.get(kind, 0.0) >= ANCHOR_STRUCTURE for kind in structural)


def witnesses(ev: Evidence, category: str) -> int:
    """How many independent kinds of evidence testify for the category."""
    values = ev.values.get(category, {})
    return sum(1 for kinds, floor in WITNESSES if max(values.get(k, 0.0) for k in kinds) >= floor)


def basis(ev: Evidence, category: str) -> str:
    """What a card was named on, for the card's facts: the signature, an anchor or the witnesses."""
    values = ev.values.get(category, {})
    if values.get("rule", 0.0) >= ANCHOR_RULE:
        return "signature"
    if anchored(ev, category):
        return "anchor"
    return f"{witnesses(ev, category)} independent witnesses"


def corroborated(ev: Evidence, category: str) -> bool:
    """Enough independent or specific evidence to name the category (see the module's notes)."""
    if ev.program_error:
        # A plain programming error (AttributeError, ImportError, ...) is the user's code unless
        # something specific to a category says otherwise: a message naming a library is not that.
        return anchored(ev, category, strict=True)
    anchor = anchored(ev, category)
    if category in NEEDS_ANCHOR:
        return anchor
    return anchor or witnesses(ev, category) >= 2


def structural(ev: Evidence, category: str) -> bool:
    """Something beyond vocabulary testifies for the category: a signature or template, the
    exception, its module or status, an op, an XLA code, a frame, a shape check. Words alone (the
    category's phrases, learned words) name a category only when very sure (``VOCABULARY_GATE``):
    on errors unlike the zoo's they say what the text is about ("replica", "failed to
    initialize"), not what went wrong."""
    values = ev.values.get(category, {})
    return any(v >= STRUCTURE_FLOOR for k, v in values.items() if k not in VOCABULARY)


def _sigmoid(x: float) -> float:
    if x < -30:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))
