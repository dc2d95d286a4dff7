"""The triage engine: text in, error cards out.

>>> cards = classify_text("XlaRuntimeError: RESOURCE_EXHAUSTED: Ran out of memory in memory "
...                       "space hbm. Used 21.90G of 7.48G hbm.")
>>> cards[0].category, cards[0].facts["hbm_used"], cards[0].facts["hbm_limit"]
('oom', '21.90G', '7.48G')

How it stays fast on a live log: text is scanned in blocks of about a megabyte for a few short scan
keys, all at once by one automaton that runs in compiled code (:mod:`.scan`). Ordinary lines hold no
key and are never looked at one by one; the few lines that do are handed to the assembler and to the
regexes of the signatures whose anchors they contain.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from .assemble import Assembler, ErrorEvent
from .cards import Card
from .facts import general_facts, message_lines, structural_subtype
from .features import extract
from .knowledge import CATEGORIES, Signature
from .recognise import recognise
from .scan import index
from .scorer import Scored, basis, decide, model
from .structure import ErrorDoc, is_own_line, parse
from .summary import is_preamble, summary

# A traceback frame as Python or IPython prints it; only frame signatures read these lines.
_FRAME_LINE = re.compile(r'^\s*(?:\S{1,12}: )?(?:File ["~/]|Cell In\[)|^\s*\S+\.py(?::\d+)? in \S+\(')
MIN_SECONDARY = 0.6  # a second card needs a signature this sure (the first comes from the scorer)
MAX_CARDS = 3
_BLOCK = 1 << 20
# The text the structural parse reads: a pasted error whole, a long log's last part (where the error
# that stopped the job is). Only this much is ever parsed, whatever the log's size.
_REGION = 256 * 1024
_REGION_TAIL = 64 * 1024
_EVIDENCE_CHARS = 400
_LINES_KEPT = 16


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
        self._index = index()
        self._hits: dict[str, _Hit] = {}
        self._pending: list[str] = []
        self._pending_len = 0
        self._carry = ""
        self._refined: set[str] = set()  # categories a more specific match replaced
        self._region: list[str] = []
        self._region_len = 0
        self._parsed: tuple[int, ErrorDoc, int] | None = None

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
        """The diagnosis so far, primary first; empty means `unknown`.

        The signatures' matches, the structure of the error region (exception classes, frames,
        op names, status codes) and the message's vocabulary are weighed together by the scorer;
        below its gate the answer is `unknown`.
        """
        doc, offset = self._read()
        ev = extract(doc, self.rule_hits(), model().learned, suppress=self._refined)
        best, ranked = decide(ev)
        if best is None:
            return []
        out = [self._card(best, doc, offset)]
        out[0].facts["named_on"] = basis(ev, best.category)
        for other in ranked[1:]:
            hit = self._hits.get(other.category) if other.category not in self._refined else None
            if len(out) >= MAX_CARDS or hit is None or self._confidence(hit) < MIN_SECONDARY:
                continue
            card = self._card(other, doc, offset)
            card.confidence = min(card.confidence, round(out[0].confidence - 0.01, 2))  # ranked below
            out.append(card)
        return out

    def rule_hits(self) -> dict[str, tuple[float, int, str]]:
        """Each category's best signature match: (confidence, line, evidence)."""
        self._read()
        return {
            c: (self._confidence(h), h.line, h.evidence)
            for c, h in self._hits.items()
            if c not in self._refined
        }

    @property
    def refined(self) -> set[str]:
        """Categories a more specific signature match replaced (see ``Signature.refines``)."""
        return set(self._refined)

    def region(self) -> str:
        """The text the structural parse reads: all of a short text, the tail of a long log."""
        self._finish()
        return "".join(self._region)

    def _read(self) -> tuple[ErrorDoc, int]:
        """Parse the error region once (per amount of text seen) and add what the frameworks'
        message templates and the error's structure say (:mod:`.recognise`) to the signatures'
        matches. Returns the parsed region and the log line number its first line follows."""
        self._finish()
        if self._parsed is not None and self._parsed[0] == self.lines_seen:
            return self._parsed[1], self._parsed[2]
        text = self.region()
        doc = parse(text)
        offset = self.lines_seen - text.count("\n")
        for category, found in recognise(doc, text).items():
            if category in self._refined:
                continue
            line = found.line + offset if found.line is not None else None
            hit = self._hits.get(category)
            if hit is None:
                hit = self._hits[category] = _Hit(found.confidence, line, found.evidence, found.subtype, None)
            elif found.confidence > hit.score:
                hit.score, hit.line, hit.evidence, hit.subtype = (
                    found.confidence,
                    line,
                    found.evidence,
                    found.subtype,
                )
            hit.signatures.add(("structure", found.subtype))
            self._refined.update(c for c in found.refines if c != category)
        self._parsed = (self.lines_seen, doc, offset)
        return doc, offset

    def _finish(self) -> None:
        self._flush_pending()
        if self._carry:
            carry, self._carry = self._carry, ""
            self._scan(carry + "\n")

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
        find = block.find
        base = self.lines_seen
        last, lineno = 0, base
        for s, e in self._index.key_lines(block):
            lineno += block.count("\n", last, s)
            last = s
            if is_own_line(block[s:e]):  # tpuwatch's own agent lines are never evidence
                continue
            hit = self._examine(block[s:e], lineno + 1)
            if hit is not None and len(hit.lines) < _LINES_KEPT and e < len(block):
                # Details often continue on the next line ("[[{{node ...}}]]", HBM breakdowns).
                after = find("\n", e + 1)
                following = block[e + 1 : after if after != -1 else len(block)]
                if not is_own_line(following):
                    hit.lines.append(following)
        self.lines_seen = base + block.count("\n")
        self.bytes_seen += len(block)
        self._keep(block)

    def _keep(self, block: str) -> None:
        self._region.append(block)
        self._region_len += len(block)
        while self._region_len > _REGION and len(self._region) > 1:
            self._region_len -= len(self._region.pop(0))
        if self._region_len > _REGION:
            tail = self._region[0]
            cut = tail.find("\n", len(tail) - _REGION_TAIL) + 1 or len(tail) - _REGION_TAIL
            self._region = [tail[cut:]]
            self._region_len = len(self._region[0])

    def _examine(self, line: str, lineno: int) -> _Hit | None:
        weight = self.assembler.observe(line, lineno)
        best: tuple[float, str, int, Signature, int] | None = None
        seen: set[tuple[str, int]] = set()
        frame_line = _FRAME_LINE.match(line) is not None
        for anchor in self._index.anchors:
            if anchor not in line:
                continue
            for cat_id, number, signature in self._index.by_anchor[anchor]:
                if (cat_id, number) in seen:
                    continue
                seen.add((cat_id, number))
                if signature.frames != frame_line:
                    continue
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
        self._refined.update(signature.refines)
        if len(hit.lines) < _LINES_KEPT:
            hit.lines.append(line)
        return hit

    # -- cards -------------------------------------------------------------------------------
    @staticmethod
    def _confidence(hit: _Hit) -> float:
        return round(min(0.99, hit.score + 0.02 * (len(hit.signatures) - 1)), 2)

    def _card(self, scored: Scored, doc: ErrorDoc, offset: int) -> Card:
        cat = CATEGORIES[scored.category]
        hit = self._hits.get(scored.category)
        said_line, said = summary(doc)
        said_line = said_line + offset if said_line is not None else None
        if hit is not None and self._confidence(hit) >= 0.8 and not is_preamble(hit.evidence):
            evidence, line, subtype = hit.evidence, hit.line, hit.subtype
            lines = [hit.evidence] + [x for x in hit.lines if x != hit.evidence] + [said]
        else:
            evidence, line = (said, said_line) if said else (hit.evidence, hit.line) if hit else ("", None)
            subtype = (hit.subtype if hit else "") or structural_subtype(scored.category, doc, scored)
            lines = [evidence, *(message_lines(doc)), *(hit.lines if hit else [])]
        facts = cat.facts(lines) if cat.facts else {}
        facts.update({k: v for k, v in general_facts(lines).items() if k not in facts})
        where = (hit.user_frame if hit else None) or self.assembler.last_user_frame
        if where:
            facts["user_frame"] = where
        if hit is not None and hit.count > 1:
            facts["occurrences"] = hit.count
        facts["signals"] = [reason for _, _, reason, _ in scored.signals[:4]]
        fixes = cat.fixes_for(subtype)
        _tailor(cat.id, facts, fixes, self.context)
        return Card(
            category=cat.id,
            subtype=subtype,
            title=cat.title_for(subtype, facts),
            confidence=round(min(0.99, scored.probability), 2),
            evidence=evidence,
            line=line,
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


def triage_error(message: str, before: Iterable[str] = (), context: Mapping | None = None) -> list[Card]:
    """The one way tpuwatch triages an error, for the CLI, the server's error events and pasted text.

    ``message`` is the error (a traceback, a whole log); ``before`` the log lines that came just
    before it (what the agent sends as an error event's context): they are read with it, as one
    text, so a loop's own ``loss inf`` or the steps that ran before a shape error count the same
    whether the error arrives as an event or inside a log file. Card line numbers count from the
    first line of ``message``; evidence found in ``before`` has no line of its own (None).

    >>> [c.category for c in triage_error("ValueError: tensor had no data", ["step 1 loss inf"])]
    ['nan_inf']
    """
    before = [line.rstrip("\n") for line in before]
    text = "\n".join([*before, message]) if before else message
    cards = classify_text(text, context)
    for card in cards:
        if before and card.line is not None:
            card.line = card.line - len(before) if card.line > len(before) else None
    return cards


def classify_text(text: str, context: Mapping | None = None) -> list[Card]:
    """Classify an error text or a whole log; the primary diagnosis comes first.

    ``context`` may carry what the server knows about the job (``global_batch_size``,
    ``replicas``, ``hbm_limit``) to make the fixes concrete. An empty list means `unknown`.
    """
    classifier = Classifier(context)
    classifier.feed_text(text)
    return classifier.cards()
