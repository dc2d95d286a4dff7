"""Grouping unknown errors by template (Drain3 log template mining, in memory).

An error no signature knows still recurs: the same new failure on every host of a slice, or in
every retry of a job. Its representative line (the root exception, see :mod:`.assemble`) is masked
(numbers, addresses, paths, ids) and mined into a template, so those occurrences form one group with
a count instead of a hundred unrelated cards.

>>> grouper = UnknownGrouper()
>>> a = grouper.add("RuntimeError: worker 3 lost its lease after 120 s", source="host-0")
>>> b = grouper.add("RuntimeError: worker 7 lost its lease after 95 s", source="host-1")
>>> a.key == b.key, b.count
(True, 2)
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass, field

from drain3 import TemplateMiner
from drain3.masking import MaskingInstruction
from drain3.template_miner_config import TemplateMinerConfig

from .summary import summary_line

# Order matters: the longer, more specific shapes are masked before bare numbers.
_MASKS = (
    (r"(?:gs|https?|grpc|file)://[^\s'\"]+", "URI"),
    (r"(?:/[\w.\-<>]+){2,}", "PATH"),
    (r"\b(?:ipv[46]:)?\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b", "IP"),
    (r"\b0x[0-9a-fA-F]+\b", "HEX"),
    (r"\b[0-9a-f]{12,}\b", "ID"),
    (r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?[KMGT]?i?B?\b", "NUM"),
)
_MAX_CHARS = 400


@dataclass
class Group:
    """One template of unknown errors and how often it was seen."""

    key: str  # stable across processes: a hash of the first template mined for the group
    cluster_id: int
    template: str
    count: int = 0
    sources: set = field(default_factory=set)
    example: str = ""


def error_line(text: str) -> str:
    """The line of ``text`` that stands for the error: the line that says what happened."""
    return summary_line(text)


def _config() -> TemplateMinerConfig:
    config = TemplateMinerConfig()
    config.profiling_enabled = False
    config.drain_sim_th = 0.5
    config.masking_instructions = [MaskingInstruction(p, name) for p, name in _MASKS]
    return config


class UnknownGrouper:
    """In-memory template groups of unknown errors; safe to share between threads."""

    def __init__(self) -> None:
        self._miner = TemplateMiner(config=_config())
        self._groups: dict[int, Group] = {}
        self._lock = threading.Lock()

    def add(self, text: str, source: str | None = None) -> Group:
        """Add one unknown error (a whole log or its error text); return its group."""
        line = error_line(text)[:_MAX_CHARS]
        with self._lock:
            result = self._miner.add_log_message(line)
            cluster_id = result["cluster_id"]
            group = self._groups.get(cluster_id)
            if group is None:
                key = hashlib.sha1(result["template_mined"].encode()).hexdigest()[:12]
                group = self._groups[cluster_id] = Group(key, cluster_id, "", example=line)
            group.template = result["template_mined"]
            group.count += 1
            if source is not None:
                group.sources.add(source)
            return group

    def groups(self) -> list[Group]:
        """All groups, the most frequent first."""
        with self._lock:
            return sorted(self._groups.values(), key=lambda g: (-g.count, g.cluster_id))


def template_for(text: str) -> tuple[str, str]:
    """(key, template) of one unknown error on its own, without any grouping state.

    >>> template_for("ValueError: bad shard 17 at /data/train-00017.tfrecord")[1]
    'ValueError: bad shard <NUM> at <PATH>'
    """
    line = error_line(text)[:_MAX_CHARS]
    for pattern, name in _MASKS:
        line = re.sub(pattern, f"<{name}>", line)
    line = re.sub(r"\s+", " ", line).strip()
    return hashlib.sha1(line.encode()).hexdigest()[:12], line
