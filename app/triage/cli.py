"""``tpuwatch triage FILE... [--json]``: classify logs offline.

Standard library only at module level (``tpuwatch.cli`` imports every domain's ``cli`` to build
``--help``); the engine is imported when the command runs.
"""

from __future__ import annotations

import argparse
import codecs
import json
import os
import sys
import time

_READ = 1 << 20
_JSON_KEYS = ("category", "subtype", "title", "confidence", "evidence", "line", "explanation", "fixes")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "triage",
        help="classify the error in training logs and print fixes",
        description="Classify the error in each log and print a card: what went wrong, the "
        "line that shows it, and what to try first. Reads '-' as standard input.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="log file, or - for stdin")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per file and line, in order"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .engine import Classifier

    status = 0
    progress = _Progress() if sys.stderr.isatty() else None
    for name in args.files:
        classifier = Classifier()
        try:
            _feed(name, classifier, progress)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            print(f"tpuwatch triage: cannot read {name}: {reason}", file=sys.stderr)
            status = 2
            if args.json:
                _emit({"file": name, "error": reason, "cards": []})
            continue
        cards = classifier.cards()
        if args.json:
            _emit({"file": name, "cards": [{k: c.to_dict()[k] for k in _JSON_KEYS} for c in cards]})
        else:
            print(_human(name, cards, classifier))
    return status


def _feed(name: str, classifier, progress) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    if name == "-":
        stream, total, close = sys.stdin.buffer, None, False
    else:
        stream = open(name, "rb")  # closed below
        close = True
        total = os.fstat(stream.fileno()).st_size
    try:
        while True:
            chunk = stream.read(_READ)
            if not chunk:
                break
            classifier.feed_text(decoder.decode(chunk))
            if progress:
                progress.update(name, classifier.bytes_seen, total)
        classifier.feed_text(decoder.decode(b"", final=True))
    finally:
        if close:
            stream.close()
        if progress:
            progress.done()


def _emit(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _human(name: str, cards, classifier) -> str:
    out = [f"== {name}"]
    if not cards:
        out.append("unknown: no known error signature matched.")
        event = classifier.root_event()
        if event:
            out.append(f"  line {event.line}: {event.text[:300]}")
            out.append(
                "  Read the first error (above), not the last; group it with "
                "similar errors in the server's triage view."
            )
        return "\n".join(out)
    for number, card in enumerate(cards):
        head = "" if number == 0 else "also: "
        out.append(f"{head}{card.title}")
        subtype = f"/{card.subtype}" if card.subtype else ""
        out.append(f"  [{card.category}{subtype}]  confidence {card.confidence:.2f}")
        out.append(f"  line {card.line}: {card.evidence}")
        if "user_frame" in card.facts:
            out.append(f"  in your code: {card.facts['user_frame']}")
        if number == 0 and card.facts.get("signals"):
            named_on = f" (named on: {card.facts['named_on']})" if card.facts.get("named_on") else ""
            out.append("  why: " + "; ".join(card.facts["signals"][:3]) + named_on)
        if number == 0:
            out.append(f"  {card.explanation}")
            out.append("  Fixes, first thing first:")
            out.extend(f"    {i}. {fix}" for i, fix in enumerate(card.fixes, 1))
    return "\n".join(out)


class _Progress:
    """A one-line progress report on a terminal, at most a few times a second."""

    def __init__(self) -> None:
        self._last = 0.0
        self._shown = False

    def update(self, name: str, done: int, total: int | None) -> None:
        now = time.monotonic()
        if now - self._last < 0.25:
            return
        self._last = now
        pct = f" ({100 * done / total:.0f}%)" if total else ""
        sys.stderr.write(f"\r{name}: {done / 1e6:.0f} MB{pct}  ")
        sys.stderr.flush()
        self._shown = True

    def done(self) -> None:
        if self._shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self._shown = False
