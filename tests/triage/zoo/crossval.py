#!/usr/bin/env python3
"""Leave-one-group-out cross-validation of the triage scorer on the failure zoo.

``--by family`` (the default): for each family (one mistake's scripts across frameworks) the
scorer's weights and learned vocabulary are refitted on the other families, then the held-out
family is classified with the shipped gate. ``--by repository``: the same with whole survey
repositories held out (every family chosen from one repository's threads leaves together); it
scores the errors whose script names a survey repository (``source:``), while the others only train.
Prints per-category accuracy and named precision, then the same for the shipped model on the dev
corpus when it is present. Run: ``python tests/triage/zoo/crossval.py [--by repository]`` (needs the
``dev`` extra for scikit-learn).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ZOO = Path(__file__).resolve().parent / "captured.jsonl"
SUPPLEMENT = Path(__file__).resolve().parents[1] / "supplement" / "captured.jsonl"
DOCUMENTED = Path(__file__).resolve().parents[1] / "supplement" / "documented.jsonl"
DEV = Path("/work/shared/corpus/errors-dev.jsonl")


def grouped_crossval(examples: list, group: dict[str, str]) -> list:
    """Leave-one-group-out: each example scored by a model fitted without its whole group. The
    examples keep their families (the learned vocabulary counts families, not groups)."""
    from tpuwatch.server.triage import learn

    out = []
    for held in sorted(set(group.values())):
        m = learn.fit([ex for ex in examples if group[ex.id] != held], gate=0.0)
        out += [learn.predict(ex, m) for ex in examples if group[ex.id] == held]
    return out


def zoo_scores(paths: list[Path], out=sys.stdout, by: str = "family") -> tuple[float, float]:
    """(accuracy, named precision) of leave-one-family-out (or leave-one-repository-out) on the first
    file's errors (the zoo), at the shipped gate and margin; the other files' errors (the
    supplement) only add training data to each fold."""
    from tpuwatch.server.triage import learn
    from tpuwatch.server.triage.scorer import model

    zoo_rows = learn.load(paths[0])
    rows = [row for path in paths if path.exists() for row in learn.load(path)]
    examples = learn.prepare(rows)
    gate, margin = model().gate, model().margin
    if by == "family":
        scored = {row["id"] for row in zoo_rows}
        results = [r for r in learn.crossval(examples) if r[0].id in scored]
        groups = len({r.ex.family for r in results})
    else:
        # Errors without a survey repository are held out with their family and never scored.
        group = {
            row["id"]: row.get("repository") or f"family:{row.get('family') or row['id']}" for row in rows
        }
        scored = {row["id"] for row in zoo_rows if row.get("repository")}
        results = [r for r in grouped_crossval(examples, group) if r[0].id in scored]
        groups = len({group[r.ex.id] for r in results})
    print(
        f"leave-one-{by}-out on {len(results)} errors in {groups} {by} groups, gate {gate:.2f}, "
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
    parser.add_argument("--zoo", type=Path, nargs="+", default=[ZOO, SUPPLEMENT, DOCUMENTED])
    parser.add_argument("--dev", type=Path, default=DEV)
    parser.add_argument(
        "--by",
        choices=("family", "repository"),
        default="family",
        help="what each fold leaves out: one mistake family, or one survey repository's families",
    )
    args = parser.parse_args()
    accuracy, precision = zoo_scores(args.zoo, by=args.by)
    if args.dev.exists():
        print()
        dev_scores(args.dev)
    return 0 if accuracy >= 0.90 and precision >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
