"""The anchor scan: which lines of a log are worth a look.

Text is scanned in blocks for a handful of short *scan keys* with one compiled regex (a trie of the
keys, so few characters can start a match); only the lines that hold one are examined, and the
literal anchors the signatures declare then route each such line to the signatures worth trying.
Ordinary training output holds no key and is never looked at line by line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .knowledge import CATEGORIES, Category, Signature

# Short substrings that cover most anchors (see Index). Every line holding one is looked at on
# its own, so they must be rare in ordinary training output; and they mostly start with an uncommon
# character, because the scanning regex is fastest when few characters can begin a match.
SCAN_KEYS = (
    "rror",
    "RROR",
    "xception",
    "Fail",
    "fail",
    "upport",
    "Memory",
    "memory",
    "xhaust",
    "XHAUST",
    "vailable",
    "VAILABLE",
    "Deadline",
    "DEADLINE",
    "NaN",
    "OOM",
    "Compil",
    "compil",
    "Connect",
    "connect",
    "File ",
    "Traceback",
    "heckpoint",
    "ckpt",
    "Strateg",
    "strateg",
    "ynamic",
    "Concret",
    "concret",
    "preempt",
    "Preempt",
    "End of seq",
    "End of Seq",
    "Out of range",
    # torch_xla's metrics analysis ("pt-xla-profiler: Op(s) not lowered: aten::...").
    "Op(s) not",
    # Keras progress lines ("- loss: nan - ...") when training diverged.
    "oss: nan",
    "Ran out of",
    "ran out of",
    "Invalid",
    "Permission",
    "permission",
    "fixed size",
    "OpKernel",
    "lame worker",
    "storage.objects",
    "Cell In[",
    "<ipython-input",
    "Mosaic",
    "steps_per_epoch * epochs",
    # XLA's HBM breakdown after an OOM ("Total hbm usage >= ...", "Program hbm requirement ...").
    "Total hbm",
    "Program hbm",
    "INVALID",
    "TPU models",
    "Aborted",
    "SaveV2",
    "RestoreV2",
    "Data loss",
    "Expected image",
    "WaitForConnected",
)


def _trie_regex(words: list[str]) -> str:
    """A regex matching any of ``words``, factored by common prefixes (faster to scan)."""
    if "" in words:
        rest = [w for w in words if w]
        return f"(?:{_trie_regex(rest)})?" if rest else ""
    groups: dict[str, list[str]] = {}
    for word in words:
        groups.setdefault(word[0], []).append(word[1:])
    alts = [re.escape(c) + _trie_regex(tails) for c, tails in sorted(groups.items())]
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


class Index:
    """Anchors -> signatures, built once from the knowledge base."""

    def __init__(self, categories: Mapping[str, Category]) -> None:
        self.by_anchor: dict[str, list[tuple[str, int, Signature]]] = {}
        for cat in categories.values():
            for number, signature in enumerate(cat.signatures):
                for anchor in signature.anchors:
                    self.by_anchor.setdefault(anchor, []).append((cat.id, number, signature))
        # Blocks are scanned for the scan keys only; the anchors then route a found line to the
        # signatures worth trying. A signature's line is thus seen when it holds a scan key: the
        # error words ("Error", "failed", "Exhausted", "unsupported", ...) that real errors print.
        keys = set(SCAN_KEYS)
        self.scan = sorted(k for k in keys if not any(o != k and o in k for o in keys))
        self.scan_re = re.compile(_trie_regex(self.scan))
        self.anchors = sorted(self.by_anchor)


_INDEX: Index | None = None


def index() -> Index:
    global _INDEX
    if _INDEX is None:
        _INDEX = Index(CATEGORIES)
    return _INDEX
