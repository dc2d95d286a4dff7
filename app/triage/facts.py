"""Facts a card states beyond its category: op names, dtypes, shapes, paths, the exception; and the
subtype when the diagnosis came from structure rather than from a signature.

>>> general_facts(["Input to reshape is a tensor with 64 values, but the requested shape has 512",
...                "[[{{node functional_1/Reshape}}]]"])["op"]
'Reshape'
"""

from __future__ import annotations

import re

from .features import chain
from .scorer import Scored
from .structure import ErrorDoc, op_type
from .summary import is_preamble

_NODE = re.compile(r"\{\{node ([^}\s]+)\}\}|\[Op:(\w+)\]|node '?([\w/.\-]+)'? (?:defined|=)")
_DTYPE = re.compile(
    r"\b(u?int(?:8|16|32|64)|float(?:16|32|64)|bfloat16|complex(?:64|128)|float64|double|string|"
    r"DT_[A-Z0-9]+|[fsuc](?:8|16|32|64|128)(?=\[))\b"
)
_SHAPE = re.compile(
    r"(?<![\w\]])(\((?:\d+|None|\?)(?:, ?(?:\d+|None|\?))*,?\)|\[(?:\d+|\?|None)(?:, ?(?:\d+|\?|None))*\])"
)
_PATH = re.compile(r"((?:gs|s3|hf)://[^\s'\",)]+|(?<![\w.])/(?:[\w.\-]+/)+[\w.\-]+)")
_TRACERS = {
    "ConcretizationTypeError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "TracerArrayConversionError",
    "NonConcreteBooleanIndexError",
}


def general_facts(lines: list[str]) -> dict:
    """Op, dtype, shapes and a path named in the lines, when they name one."""
    facts: dict = {}
    text = "\n".join(lines)
    m = _NODE.search(text)
    if m:
        name = next(g for g in m.groups() if g)
        if not name.startswith("__inference"):
            facts["op"] = op_type(name)
    m = _DTYPE.search(text)
    if m:
        facts["dtype"] = m.group(1)
    shapes = _SHAPE.findall(lines[0] if lines else "")
    if shapes:
        facts["shapes"] = ", ".join(shapes[:3])
    m = _PATH.search(text)
    if m and "-packages/" not in m.group(1):
        facts["path"] = m.group(1)
    return facts


def message_lines(doc: ErrorDoc) -> list[str]:
    """The lines that carry the error's message (for facts), root cause first."""
    out = []
    for exc in chain(doc):
        out += [line for line in exc.message if not is_preamble(line)][:6]
    out += [text for _, text in doc.error_lines[:4]]
    return out[:24]


def structural_subtype(category: str, doc: ErrorDoc, scored: Scored) -> str:
    """A subtype from what decided the card, when no signature named one."""
    kinds = {kind for kind, *_ in scored.signals}
    names = {e.name for e in doc.exceptions}
    if category == "dynamic_shape":
        if "shape_late" in kinds:
            return "partial_batch"
        if names & _TRACERS:
            return "jax_tracer"
    if category == "compile_error" and "shape_static" in kinds:
        return "shape_mismatch"
    if category == "input_pipeline" and ("OutOfRangeError" in names or "StopIteration" in names):
        return "exhausted"
    if category == "input_pipeline" and kinds & {"frame", "inner", "node"}:
        return "input_fn"
    return ""
