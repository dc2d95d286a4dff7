#!/usr/bin/env python3
"""Leave-one-family-out cross-validation of the triage scorer on the failure zoo.

For each family (one mistake's scripts across frameworks) the scorer's weights and learned
vocabulary are refitted on the other families, then the held-out family is classified with the
shipped gate. Prints per-category accuracy and named precision, then the same for the shipped model
on the dev corpus when it is present. Run: ``python tests/triage/zoo/crossval.py`` (needs the
``dev`` extra for scikit-learn).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ZOO = Path(__file__).resolve().parent / "captured.jsonl"
SUPPLEMENT = Path(__file__).resolve().parents[1] / "supplement" / "captured.jsonl"
DEV = Path("/work/shared/corpus/errors-dev.jsonl")


def zoo_scores(paths: list[Path], out=sys.stdout) -> tuple[float, float]:
    """(accuracy, named precision) of leave-one-family-out on the first file's errors (the zoo), at
    the shipped gate and margin; the other files' errors (the supplement) only add training data to
    each fold."""
    from tpuwatch.server.triage import learn
    from tpuwatch.server.triage.scorer import model

    scored = {row["id"] for row in learn.load(paths[0])}
    examples = learn.prepare([row for path in paths if path.exists() for row in learn.load(path)])
    results = [r for r in learn.crossval(examples) if r[0].id in scored]
    families = len({r.ex.family for r in results})
    gate, margin = model().gate, model().margin
    print(
        f"leave-one-family-out on {len(results)} errors in {families} families, gate {gate:.2f}, "
        f"margin {margin:.2f}:",
        file=out,
    )
    return learn.report(results, gate, margin, out=out)


def dev_scores(path: Path = DEV, out=sys.stdout) -> tuple[float, float]:
    """(accuracy, named precision) of the shipped model on a labelled corpus."""
    from tpuwatch.server.triage import learn
    from tpuwatch.server.triage.engine import classify_text

    results = []
    for row in learn.load(path):
        cards = classify_text(row["text"])
        ex = learn.Example(row["id"], row["id"], row["label"], None, set())
        results.append((ex, cards[0].category if cards else "unknown", cards[0].confidence if cards else 0.0))
    print(f"shipped model on {path.name}:", file=out)
    return learn.report(results, 0.0, out=out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--zoo", type=Path, nargs="+", default=[ZOO, SUPPLEMENT])
    parser.add_argument("--dev", type=Path, default=DEV)
    args = parser.parse_args()
    accuracy, precision = zoo_scores(args.zoo)
    if args.dev.exists():
        print()
        dev_scores(args.dev)
    return 0 if accuracy >= 0.90 and precision >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
