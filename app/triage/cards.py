"""The card: what every triage result looks like, for errors and for performance alike."""

from __future__ import annotations

from dataclasses import dataclass, field

# Keys of Card.to_dict(), in the order the CLI and the API print them.
CARD_KEYS = ("category", "subtype", "title", "confidence", "evidence", "line", "explanation", "fixes")


@dataclass
class Card:
    """One diagnosis.

    >>> Card("oom", "hbm", "TPU HBM exhausted", 0.97, "Ran out of memory ...", 12,
    ...      "The program needs more HBM than the chip has.", ["Lower the batch size."]).line
    12
    """

    category: str
    subtype: str
    title: str
    confidence: float
    evidence: str
    line: int | None
    explanation: str
    fixes: list[str]
    facts: dict = field(default_factory=dict)

    def to_dict(self, *, facts: bool = True) -> dict:
        out = {key: getattr(self, key) for key in CARD_KEYS}
        out["fixes"] = list(self.fixes)
        if facts:
            out["facts"] = dict(self.facts)
        return out
