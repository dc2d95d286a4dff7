"""Fitting the scorer's weights on the failure zoo, and leave-one-family-out cross-validation.

Training time only: this module needs scikit-learn (the ``dev`` extra); the server does not import
it. ``python -m tpuwatch.server.triage.learn ZOO.jsonl --write`` refits ``weights.json``
(``make triage-model``); ``--crossval`` prints the leave-one-family-out scores.

What is learned, and so what leave-one-family-out tests honestly:

- one weight per kind of structural evidence (see :data:`.features.KINDS`; the signatures keep
  their hand-set confidence and are combined with the result, see :func:`.scorer.score`) and one
  bias, shared by all
  categories, by a logistic regression over (error, category) pairs: "is this the error's
  category?";
- the learned vocabulary: words that several *families* of one category use and the others do not
  (a word seen in one family only never counts, so one mistake's wording cannot carry a category);
- the gate (the probability below which the answer is ``unknown``) is chosen once, on the
  cross-validated predictions, for named precision of at least 0.95.

In every fold the weights and the vocabulary are refitted without the held-out family. The
hand-written knowledge (signatures, exception / frame / op tables, category vocabularies) is the
same in every fold; it names classes, modules and meanings rather than any one family's sentences,
but parts of it were written after reading the zoo's misses (its labelling conventions: a type
mismatch between control-flow branches is a compile error, a storage scheme the build lacks is a
file-system problem), so for the hand-written part the score is an upper bound, not a held-out one.
Signatures never read traceback frame lines and user evidence comes from function names only, so
the zoo's family-named script paths cannot leak into any fold.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from .engine import Classifier
from .features import CATEGORIES, KINDS, Evidence, extract, message_text, tokens
from .scorer import WEIGHTS_PATH, Model, decide
from .structure import parse

MIN_FAMILIES = 3  # a learned word must be used by this many families of its category ...
MIN_SHARE = 0.2  # ... and by this share of them
# Words every error uses: they say nothing about the category, however the counts fall.
STOPWORDS = frozenset(
    "the and for with not was were are has have had but this that from into its you your can may will "
    "would should could been being than then there their these those which while when also only any all "
    "one two each per via our please see above below following".split()
)
MIN_LOG_ODDS = 1.0
MAX_LOG_ODDS = 3.0
REGULARISATION = 1.0  # sklearn's C
TARGET_PRECISION = 0.95
MIN_GATE = 0.5


@dataclass
class Example:
    id: str
    family: str
    label: str
    evidence: Evidence  # without the learned vocabulary
    words: set[str]


def prepare(rows: list[dict]) -> list[Example]:
    """Parse and measure each labelled error once."""
    out = []
    for row in rows:
        classifier = Classifier()
        classifier.feed_text(row["text"])
        rules = classifier.rule_hits()
        doc = parse(classifier.region())
        text = message_text(doc)
        ev = extract(doc, rules, None, text, suppress=classifier.refined)
        out.append(Example(row["id"], row.get("family") or row["id"], row["label"], ev, tokens(text)))
    return out


def vocabulary(examples: list[Example]) -> dict[str, dict[str, float]]:
    """Words several families of a category use, with their log-odds for it (family counts)."""
    families: dict[str, set[str]] = defaultdict(set)
    uses: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for ex in examples:
        families[ex.label].add(ex.family)
        for word in ex.words:
            uses[word][ex.label].add(ex.family)
    total = sum(len(f) for f in families.values())
    out: dict[str, dict[str, float]] = {}
    for word, by_label in uses.items():
        # Exception class names are the ``exc`` evidence's job, with their own hand-set meaning.
        if word in STOPWORDS or word.endswith(("error", "exception")):
            continue
        for category in CATEGORIES:
            inside = len(by_label.get(category, ()))
            if inside < max(MIN_FAMILIES, MIN_SHARE * len(families[category])):
                continue
            outside = sum(len(f) for label, f in by_label.items() if label != category)
            n_in = len(families[category])
            n_out = total - n_in
            odds = math.log((inside + 0.5) / (n_in + 1)) - math.log((outside + 0.5) / (n_out + 1))
            if odds >= MIN_LOG_ODDS:
                out.setdefault(word, {})[category] = round(min(odds, MAX_LOG_ODDS), 3)
    return out


def with_vocabulary(ex: Example, learned: dict[str, dict[str, float]]) -> Evidence:
    ev = Evidence({c: dict(v) for c, v in ex.evidence.values.items()}, dict(ex.evidence.reasons))
    sums: dict[str, float] = defaultdict(float)
    for word in ex.words:
        for category, value in learned.get(word, {}).items():
            sums[category] += value
    for category, total in sums.items():
        ev.add(category, "learned", min(total, 4.0), "learned words")
    return ev


def fit(examples: list[Example], gate: float = 0.5) -> Model:
    """Fit the kind weights and category biases (needs scikit-learn)."""
    from sklearn.linear_model import LogisticRegression

    learned = vocabulary(examples)
    rows, labels = [], []
    for ex in examples:
        ev = with_vocabulary(ex, learned)
        for category in CATEGORIES:
            values = ev.values[category]
            rows.append([values.get(k, 0.0) if k != "rule" else 0.0 for k in KINDS])
            labels.append(int(category == ex.label))
    dropped: set[int] = set()
    while True:
        x = [[0.0 if i in dropped else v for i, v in enumerate(r)] for r in rows]
        # Balanced: one right category against ten wrong ones per error would pull every score down.
        lr = LogisticRegression(C=REGULARISATION, class_weight="balanced", max_iter=5000)
        lr.fit(x, labels)
        coef = list(lr.coef_[0])
        # Evidence only ever supports a category: a kind the data gives a negative weight is dropped.
        negative = {i for i in range(len(KINDS)) if coef[i] < 0 and i not in dropped}
        if not negative:
            break
        dropped |= negative
    weights = {k: round(max(0.0, coef[i]), 4) for i, k in enumerate(KINDS)}
    # One bias for all categories: the zoo need not hold every category for the weights to apply to it.
    bias = {c: round(float(lr.intercept_[0]), 4) for c in CATEGORIES}
    return Model(weights, bias, gate, learned)


def crossval(examples: list[Example]) -> list[tuple[Example, str, float]]:
    """Leave-one-family-out: (example, prediction at gate 0, its probability) for every example."""
    out = []
    for family in sorted({ex.family for ex in examples}):
        train = [ex for ex in examples if ex.family != family]
        m = fit(train, gate=0.0)
        for ex in examples:
            if ex.family == family:
                best, _ = decide(with_vocabulary(ex, m.learned), m)
                out.append((ex, best.category if best else "unknown", best.probability if best else 0.0))
    return out


def choose_gate(results: list[tuple[Example, str, float]], target: float = TARGET_PRECISION) -> float:
    """The gate for the most right answers at a named precision of at least ``target``; among gates
    that do (nearly) as well, the highest, for a margin on errors unlike the zoo's. Never below
    ``MIN_GATE``: a card is a claim that the diagnosis is more likely right than not."""
    scored = []
    for gate in [i / 100 for i in range(int(MIN_GATE * 100), 100)]:
        named = [(ex, p) for ex, p, prob in results if p != "unknown" and prob >= gate]
        if named and sum(ex.label == p for ex, p in named) / len(named) >= target:
            right = sum(ex.label == (p if prob >= gate else "unknown") for ex, p, prob in results)
            scored.append((right, gate))
    if not scored:
        return 0.99
    best = max(right for right, _ in scored)
    return max(gate for right, gate in scored if right >= best - max(1, len(results) // 200))


def report(results: list[tuple[Example, str, float]], gate: float, out=sys.stdout) -> tuple[float, float]:
    """Print per-category accuracy and named precision; return (accuracy, named precision)."""
    ok, total, named_by, right_by = Counter(), Counter(), Counter(), Counter()
    confusions = Counter()
    for ex, pred, prob in results:
        pred = pred if prob >= gate else "unknown"
        total[ex.label] += 1
        ok[ex.label] += pred == ex.label
        if pred != "unknown":
            named_by[pred] += 1
            right_by[pred] += pred == ex.label
        if pred != ex.label:
            confusions[(ex.label, pred)] += 1
    for label in sorted(total):
        prec = f"{right_by[label] / named_by[label]:.2f}" if named_by[label] else "  - "
        print(f"{label:18s} accuracy {ok[label]:3d}/{total[label]:3d}  named precision {prec}", file=out)
    for (label, pred), n in confusions.most_common(12):
        print(f"  confused {label} -> {pred}: {n}", file=out)
    accuracy = sum(ok.values()) / max(1, sum(total.values()))
    named = sum(named_by.values())
    precision = sum(right_by.values()) / named if named else 0.0
    print(f"accuracy={accuracy:.3f} named_precision={precision:.3f} n={sum(total.values())}", file=out)
    return accuracy, precision


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("zoo", type=Path, nargs="+", help="labelled errors (captured.jsonl)")
    parser.add_argument("--write", action="store_true", help=f"write {WEIGHTS_PATH.name}")
    parser.add_argument("--crossval", action="store_true", help="print leave-one-family-out scores")
    args = parser.parse_args(argv)
    examples = prepare([row for path in args.zoo for row in load(path)])
    results = crossval(examples)
    gate = choose_gate(results)
    if args.crossval:
        print(f"leave-one-family-out, gate {gate:.2f}:")
        report(results, gate)
    if args.write:
        m = fit(examples, gate)
        WEIGHTS_PATH.write_text(json.dumps(m.to_dict(), indent=1, sort_keys=True) + "\n")
        print(f"wrote {WEIGHTS_PATH} (gate {gate:.2f}, {len(m.learned)} learned words)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
