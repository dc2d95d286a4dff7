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
- the gate (the probability below which the answer is ``unknown``) and the margin (how far the best
  category must lead the runner-up) are chosen once, on the cross-validated predictions, for named
  precision of at least 0.95.
  The corroboration rule (:func:`.scorer.corroborated`) applies in every fold as it does in use.

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
from typing import NamedTuple

from .engine import Classifier
from .features import CATEGORIES, KINDS, Evidence, extract, message_text, tokens
from .scorer import WEIGHTS_PATH, Model, may_name, score
from .structure import parse

MIN_FAMILIES = 3  # a learned word must be used by this many families of its category ...
MIN_SHARE = 0.2  # ... and by this share of them
# Words every error uses: they say nothing about the category, however the counts fall.
STOPWORDS = frozenset(
    "the and for with not was were are has have had but this that from into its you your can may will "
    "would should could been being than then there their these those which while when also only any all "
    "one two each per via our please see above below following".split()
)
# Boilerplate: a word more than this share of all families use (whatever their category) is how the
# frameworks print errors ("for simplicity, JAX has removed its internal frames", "traceback",
# "function"), not what went wrong. The zoo's categories are unevenly spread over the frameworks, so
# without this cut such words look specific to whichever category has more JAX or TF families.
MAX_SHARE_ALL = 0.25
MIN_LOG_ODDS = 1.0
MAX_LOG_ODDS = 3.0
REGULARISATION = 1.0  # sklearn's C
TARGET_PRECISION = 0.95
MIN_GATE = 0.5
MARGINS = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)


class Result(NamedTuple):
    """One cross-validated prediction, before the gate and the margin are applied."""

    ex: Example
    pred: str  # the best category ("unknown" when nothing scored)
    prob: float  # its probability
    runner: float = 0.0  # the runner-up's probability
    corroborated: bool = True  # whether its evidence may name it (see scorer.corroborated)

    def named(self, gate: float, margin: float = 0.0) -> str:
        ok = self.pred != "unknown" and self.prob >= gate and self.prob - self.runner >= margin
        return self.pred if ok and self.corroborated else "unknown"


@dataclass
class Example:
    id: str
    family: str
    label: str
    evidence: Evidence  # without the learned vocabulary
    words: set[str]
    repository: str = ""  # the public repository whose threads the family was drawn from


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
        family = row.get("family") or row["id"]
        out.append(Example(row["id"], family, row["label"], ev, tokens(text), row.get("repository") or ""))
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
        if sum(len(f) for f in by_label.values()) > MAX_SHARE_ALL * total:
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
    ev = ex.evidence.copy()
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


def crossval(examples: list[Example], by: str = "family") -> list[Result]:
    """Leave-one-family-out (``by="family"``): every example's best category, scored by a model
    fitted without its family. ``by="repository"``: leave out every family drawn from one public
    repository's threads at once (families with no repository are left out one by one)."""

    def group(ex: Example) -> str:
        return ex.repository or f"family:{ex.family}" if by == "repository" else ex.family

    out = []
    for held in sorted({group(ex) for ex in examples}):
        train = [ex for ex in examples if group(ex) != held]
        m = fit(train, gate=0.0)
        for ex in examples:
            if group(ex) == held:
                out.append(predict(ex, m))
    return out


def predict(ex: Example, m: Model) -> Result:
    ev = with_vocabulary(ex, m.learned)
    ranked = score(ev, m)
    if not ranked:
        return Result(ex, "unknown", 0.0)
    runner = ranked[1].probability if len(ranked) > 1 else 0.0
    top = ranked[0]
    return Result(ex, top.category, top.probability, runner, may_name(ev, top.category, top.probability))


def choose_gate(results: list[Result], target: float = TARGET_PRECISION) -> tuple[float, float]:
    """(gate, margin) for the most right answers at a named precision of at least ``target``; among
    settings that do as well, the smallest margin and the middle gate of those that tie. The gate is
    never below ``MIN_GATE``: a card is a claim that
    the diagnosis is more likely right than not."""
    scored = []
    for margin in MARGINS:
        for gate in [i / 100 for i in range(int(MIN_GATE * 100), 100)]:
            preds = [(r.ex.label, r.named(gate, margin)) for r in results]
            named = [(label, p) for label, p in preds if p != "unknown"]
            if named and sum(label == p for label, p in named) / len(named) >= target:
                scored.append((sum(label == p for label, p in preds), gate, margin))
    if not scored:
        return 0.99, 0.0
    best = max(right for right, _, _ in scored)
    # Among ties the smallest margin (a margin turns a close call between two named categories into
    # unknown even when the rules order them, labelling guide), and at it the middle of the gates
    # that do as well: the cross-validated errors do not tell those gates apart, and an edge of the
    # range sits right beside the probabilities of some errors (a signature's own confidence).
    margin = min(m for right, _, m in scored if right == best)
    gates = sorted(g for right, g, m in scored if right == best and m == margin)
    return gates[len(gates) // 2], margin


def report(results: list, gate: float, margin: float = 0.0, out=sys.stdout) -> tuple[float, float]:
    """Print per-category accuracy and named precision; return (accuracy, named precision).

    ``results`` are :class:`Result` (or plain ``(example, prediction, probability)`` triples)."""
    ok, total, named_by, right_by = Counter(), Counter(), Counter(), Counter()
    confusions = Counter()
    for r in results:
        ex = r[0]
        pred = Result(*r).named(gate, margin)
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
    parser.add_argument(
        "--by-repository",
        action="store_true",
        help="also print leave-one-repository-out scores on the errors whose family names a repository",
    )
    args = parser.parse_args(argv)
    examples = prepare([row for path in args.zoo for row in load(path)])
    results = crossval(examples)
    gate, margin = choose_gate(results)
    if args.crossval:
        print(f"leave-one-family-out, gate {gate:.2f}, margin {margin:.2f}:")
        report(results, gate, margin)
    if args.by_repository:
        by_repo = [r for r in crossval(examples, by="repository") if r.ex.repository]
        repos = len({r.ex.repository for r in by_repo})
        print(
            f"leave-one-repository-out on {len(by_repo)} errors from {repos} repositories, gate {gate:.2f}:"
        )
        report(by_repo, gate, margin)
    if args.write:
        m = fit(examples, gate)
        m = Model(m.weights, m.bias, gate, m.learned, margin)
        WEIGHTS_PATH.write_text(json.dumps(m.to_dict(), indent=1, sort_keys=True) + "\n")
        print(f"wrote {WEIGHTS_PATH} (gate {gate:.2f}, margin {margin:.2f}, {len(m.learned)} learned words)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
