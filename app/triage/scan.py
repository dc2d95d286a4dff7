"""The anchor scan: which lines of a log are worth a look.

Text is scanned in blocks for a handful of short *scan keys* by one Aho-Corasick automaton
(ahocorasick-rs: a single pass in compiled code finds every key at once, several times faster than
a regex alternation, which tries each position in turn); only the lines that hold a key are
examined, and the literal anchors the signatures declare then route each such line to the
signatures worth trying. Ordinary training output holds no key and is never looked at line by line.
Keys match case-sensitively, as written: a key's other spellings are keys of their own.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import ahocorasick_rs

from .knowledge import CATEGORIES, Category, Signature

_WINDOW = 64 * 1024  # characters the automaton reads at a time (bounds the matches held at once)

# Short substrings that cover most anchors (see Index). Every line holding one is looked at on
# its own, so they must be rare in ordinary training output.
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
        self._automaton = ahocorasick_rs.AhoCorasick(self.scan)
        self._longest = max(map(len, self.scan))
        self.anchors = sorted(self.by_anchor)

    def key_lines(self, block: str, window: int = _WINDOW) -> Iterator[tuple[int, int]]:
        """Where the lines of ``block`` that hold a scan key are: ``(start, end)`` of each, in
        order, ``end`` at the line's newline (or the block's end). Lines are cut at ``\\n`` only.

        The automaton reports non-overlapping matches left to right, so a line holding a key always
        has one reported inside it (no key spans a newline). It reads ``window`` characters at a
        time, plus the longest key's length less one so that no key is cut at a window's end, and
        the next window starts after the last line found: a giant line full of keys costs one
        window's matches, not one match per key in it.
        """
        rfind, find = block.rfind, block.find
        find_keys = self._automaton.find_matches_as_indexes
        pos, n, end = 0, len(block), -1
        while pos < n:
            stop = min(n, pos + window)
            for _, at, after in find_keys(block[pos : stop + self._longest - 1]):
                at += pos
                if at < end:  # in the line just found
                    continue
                start = rfind("\n", 0, at) + 1
                end = find("\n", pos + after)
                if end == -1:
                    end = n
                yield start, end
            pos = max(stop, end)


_INDEX: Index | None = None


def index() -> Index:
    global _INDEX
    if _INDEX is None:
        _INDEX = Index(CATEGORIES)
    return _INDEX
