"""The shapes of the knowledge base: a category, its signatures and how to describe it.

A signature is a regular expression over one log line plus the literal *anchors* that any line it
matches must contain. The engine scans text for anchors only (plain substring search, fast), and runs
a signature's regex only on lines that hold one of its anchors.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Signature:
    """One way a category shows up in a log line.

    ``weight`` is how sure a match makes us (0..1): specific wording that only this problem prints
    is 0.9 and up; a generic status such as ``RESOURCE_EXHAUSTED`` is lower so a specific match
    elsewhere in the log wins.
    """

    regex: str
    weight: float
    anchors: tuple[str, ...]
    subtype: str = ""
    ignorecase: bool = False
    # Categories this more specific reading replaces when it matches (their evidence is dropped).
    refines: tuple[str, ...] = ()
    # Written for traceback frame lines. Other signatures never look at a frame line: a file or
    # folder name ("scripts/static_argnums_demo/train.py") is no error message.
    frames: bool = False
    pattern: re.Pattern = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        flags = re.IGNORECASE if self.ignorecase else 0
        object.__setattr__(self, "pattern", re.compile(self.regex, flags))
        if not self.anchors:
            raise ValueError(f"signature {self.regex!r} needs at least one anchor")


def sig(
    regex: str,
    weight: float,
    *anchors: str,
    subtype: str = "",
    ignorecase: bool = False,
    refines=(),
    frames: bool = False,
):
    """Shorthand for :class:`Signature`: ``sig(r"Socket closed", 0.85, "Socket closed")``."""
    return Signature(regex, weight, tuple(anchors), subtype, ignorecase, tuple(refines), frames)


FactFn = Callable[[list[str]], dict]


@dataclass(frozen=True)
class Subtype:
    title: str
    # Fixes tried before the category's general ones when this subtype is the diagnosis.
    fixes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Category:
    """A triage category: what it is, how to recognise it, what to do about it."""

    id: str
    title: str
    explanation: str
    fixes: tuple[str, ...]
    signatures: tuple[Signature, ...] = ()
    subtypes: dict[str, Subtype] = field(default_factory=dict)
    # Pulls facts (sizes, op names, dtypes, paths) out of the lines that matched.
    facts: FactFn | None = None
    # Builds the short fact suffix of the title, e.g. "used 21.9G of 7.48G".
    headline: Callable[[dict], str] | None = None

    def fixes_for(self, subtype: str) -> list[str]:
        first = list(self.subtypes[subtype].fixes) if subtype in self.subtypes else []
        return first + [f for f in self.fixes if f not in first]

    def title_for(self, subtype: str, facts: dict) -> str:
        title = self.subtypes[subtype].title if subtype in self.subtypes else self.title
        extra = self.headline(facts) if self.headline else ""
        return f"{title}: {extra}" if extra else title


def first_group(patterns: list[re.Pattern], lines: list[str]) -> str | None:
    """The first capture group of the first pattern that matches any of ``lines``."""
    for pattern in patterns:
        for line in lines:
            m = pattern.search(line)
            if m:
                return m.group(1)
    return None
