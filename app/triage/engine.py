"""The triage engine: text in, error cards out.

>>> cards = classify_text("XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory "
...                       "space hbm. Used 21.90G of 7.48G hbm.")
>>> cards[0].category, cards[0].facts["hbm_used"], cards[0].facts["hbm_limit"]
('oom', '21.90G', '7.48G')

How it stays fast on a live log: text is scanned in blocks of about a megabyte, looking only for
the literal anchors the signatures declare (``str.find``, which runs in C). Ordinary lines hold no
anchor and are never looked at one by one; the few lines that do are handed to the assembler and to
the regexes of the signatures whose anchors they contain.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .assemble import Assembler, ErrorEvent
from .cards import Card
from .knowledge import CATEGORIES, Category, Signature

MIN_CONFIDENCE = 0.5  # below this the log is `unknown`: no card rather than a guess
MIN_SECONDARY = 0.6
MAX_CARDS = 3
_BLOCK = 1 << 20
_EVIDENCE_CHARS = 400
_LINES_KEPT = 16
# Short substrings that cover most anchors (see _Index). Every line holding one is looked at on
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


class _Index:
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


_INDEX: _Index | None = None


def _index() -> _Index:
    global _INDEX
    if _INDEX is None:
        _INDEX = _Index(CATEGORIES)
    return _INDEX


@dataclass
class _Hit:
    score: float
    line: int
    evidence: str
    subtype: str
    user_frame: str | None
    count: int = 1
    signatures: set = field(default_factory=set)
    lines: list = field(default_factory=list)


class Classifier:
    """Streaming classifier: feed lines or blocks of text, then ask for cards.

    >>> c = Classifier()
    >>> c.feed("step 1 loss 0.3\\n")
    >>> c.feed("OutOfRangeError: End of sequence\\n")
    >>> [card.category for card in c.cards()]
    ['input_pipeline']

    Memory stays bounded whatever the input size: the classifier keeps a block of at most about a
    megabyte, the best match per category and a few matched lines.
    """

    def __init__(self, context: Mapping | None = None) -> None:
        self.context = dict(context or {})
        self.assembler = Assembler()
        self.lines_seen = 0
        self.bytes_seen = 0
        self._index = _index()
        self._hits: dict[str, _Hit] = {}
        self._pending: list[str] = []
        self._pending_len = 0
        self._carry = ""

    # -- input -------------------------------------------------------------------------------
    def feed(self, line: str) -> None:
        """Take one line (with or without its newline)."""
        if not line.endswith("\n"):
            line += "\n"
        self._pending.append(line)
        self._pending_len += len(line)
        if self._pending_len >= _BLOCK:
            self._flush_pending()

    def feed_lines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.feed(line)

    def feed_text(self, text: str) -> None:
        """Take any piece of text; a line cut at the end is completed by the next call."""
        if self._pending:
            self._flush_pending()
        text = self._carry + text
        cut = text.rfind("\n") + 1
        self._carry = text[cut:]
        if cut:
            self._scan(text[:cut])

    def cards(self) -> list[Card]:
        """The diagnosis so far, primary first; empty means `unknown`."""
        self._flush_pending()
        if self._carry:
            carry, self._carry = self._carry, ""
            self._scan(carry + "\n")
        ranked = sorted(self._hits.items(), key=lambda kv: (-self._confidence(kv[1]), kv[1].line))
        out: list[Card] = []
        for cat_id, hit in ranked:
            confidence = self._confidence(hit)
            if confidence < (MIN_CONFIDENCE if not out else MIN_SECONDARY) or len(out) >= MAX_CARDS:
                break
            out.append(self._card(CATEGORIES[cat_id], hit, confidence))
        return out

    def root_event(self) -> ErrorEvent | None:
        """The first error the log reports (for grouping unknown errors)."""
        self._flush_pending()
        return self.assembler.root_event()

    # -- scanning ------------------------------------------------------------------------------
    def _flush_pending(self) -> None:
        if self._pending:
            block = "".join(self._pending)
            self._pending.clear()
            self._pending_len = 0
            self._scan(block)

    def _scan(self, block: str) -> None:
        """Scan complete lines (``block`` ends with a newline), a megabyte at a time."""
        pos, n = 0, len(block)
        while pos < n:
            end = n
            if n - pos > _BLOCK:
                end = block.rfind("\n", pos, pos + _BLOCK) + 1
                if end <= pos:  # one giant line
                    end = block.find("\n", pos + _BLOCK) + 1 or n
            self._scan_block(block[pos:end] if (pos, end) != (0, n) else block)
            pos = end

    def _scan_block(self, block: str) -> None:
        search = self._index.scan_re.search
        find = block.find
        base = self.lines_seen
        last, lineno = 0, base
        m = search(block)
        while m is not None:
            s = block.rfind("\n", 0, m.start()) + 1
            e = find("\n", m.end())
            if e == -1:
                e = len(block)
            lineno += block.count("\n", last, s)
            last = s
            hit = self._examine(block[s:e], lineno + 1)
            if hit is not None and len(hit.lines) < _LINES_KEPT and e < len(block):
                # Details often continue on the next line ("[[{{node ...}}]]", HBM breakdowns).
                after = find("\n", e + 1)
                hit.lines.append(block[e + 1 : after if after != -1 else len(block)])
            m = search(block, e)
        self.lines_seen = base + block.count("\n")
        self.bytes_seen += len(block)

    def _examine(self, line: str, lineno: int) -> _Hit | None:
        weight = self.assembler.observe(line, lineno)
        best: tuple[float, str, int, Signature, int] | None = None
        seen: set[tuple[str, int]] = set()
        for anchor in self._index.anchors:
            if anchor not in line:
                continue
            for cat_id, number, signature in self._index.by_anchor[anchor]:
                if (cat_id, number) in seen:
                    continue
                seen.add((cat_id, number))
                m = signature.pattern.search(line)
                if m and (best is None or signature.weight > best[3].weight):
                    best = (signature.weight * weight, cat_id, number, signature, m.start())
        return self._record(line, lineno, *best) if best is not None else None

    def _record(self, line, lineno, score, cat_id, number, signature, at) -> _Hit:
        hit = self._hits.get(cat_id)
        evidence = _quote(line, at)
        if hit is None:
            hit = self._hits[cat_id] = _Hit(
                score, lineno, evidence, signature.subtype, self.assembler.user_frame
            )
        else:
            hit.count += 1
            if score > hit.score:
                hit.score, hit.line, hit.evidence = score, lineno, evidence
                hit.subtype = signature.subtype or hit.subtype
                hit.user_frame = self.assembler.user_frame or hit.user_frame
            elif not hit.subtype:
                hit.subtype = signature.subtype
        hit.signatures.add(number)
        if len(hit.lines) < _LINES_KEPT:
            hit.lines.append(line)
        return hit

    # -- cards -------------------------------------------------------------------------------
    @staticmethod
    def _confidence(hit: _Hit) -> float:
        return round(min(0.99, hit.score + 0.02 * (len(hit.signatures) - 1)), 2)

    def _card(self, cat: Category, hit: _Hit, confidence: float) -> Card:
        lines = [hit.evidence] + [x for x in hit.lines if x != hit.evidence]
        facts = cat.facts(lines) if cat.facts else {}
        where = hit.user_frame or self.assembler.last_user_frame
        if where:
            facts["user_frame"] = where
        if hit.count > 1:
            facts["occurrences"] = hit.count
        fixes = cat.fixes_for(hit.subtype)
        _tailor(cat.id, facts, fixes, self.context)
        return Card(
            category=cat.id,
            subtype=hit.subtype,
            title=cat.title_for(hit.subtype, facts),
            confidence=confidence,
            evidence=hit.evidence,
            line=hit.line,
            explanation=cat.explanation,
            fixes=fixes,
            facts=facts,
        )


def _quote(line: str, at: int) -> str:
    line = line.rstrip("\r\n")
    if len(line) <= _EVIDENCE_CHARS:
        return line.strip()
    start = max(0, at - _EVIDENCE_CHARS // 3)
    return line[start : start + _EVIDENCE_CHARS].strip()


def _tailor(category: str, facts: dict, fixes: list[str], context: Mapping) -> None:
    """Make the first fix concrete with what we know about the job."""
    batch = context.get("global_batch_size")
    replicas = context.get("replicas") or context.get("num_replicas")
    if category == "oom" and isinstance(batch, int) and batch > 1:
        half = batch // 2
        per_core = f" ({half // replicas} per core)" if isinstance(replicas, int) and replicas else ""
        fixes.insert(0, f"The global batch is {batch}: try {half}{per_core} first.")
        facts.setdefault("global_batch_size", batch)
    if category == "oom" and context.get("hbm_limit") and "hbm_limit" not in facts:
        facts["hbm_limit"] = context["hbm_limit"]
    if category == "dynamic_shape" and isinstance(batch, int) and batch > 0:
        fixes.insert(
            0,
            f"Batch with dataset.batch({batch}, drop_remainder=True) so the last "
            f"partial batch never reaches the TPU.",
        )


def classify_text(text: str, context: Mapping | None = None) -> list[Card]:
    """Classify an error text or a whole log; the primary diagnosis comes first.

    ``context`` may carry what the server knows about the job (``global_batch_size``,
    ``replicas``, ``hbm_limit``) to make the fixes concrete. An empty list means `unknown`.
    """
    classifier = Classifier(context)
    classifier.feed_text(text)
    return classifier.cards()
