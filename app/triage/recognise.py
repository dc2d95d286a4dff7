"""Reading the error as an engineer does: the exception that matters, in the frameworks' own terms.

The signatures (:mod:`.knowledge`) look at single lines as the log streams past. This module reads
the parsed error region once, at the end (:mod:`.structure`), and recognises what the frameworks
raise by the templates of their messages (:mod:`.knowledge.raised`):

- the messages of the exceptions in the last chain (the cause behind "The above exception was the
  direct cause" and "During handling of", behind JAX's traceback-filtering notice, inside Keras'
  "Graph execution error:"), glog ``E``/``F`` lines and ``Check failed`` lines;
- every line of the region for what a program prints rather than raises (``loss inf``);
- two structural readings: a plain ``TypeError``/``ValueError`` raised while JAX traced a function
  that speaks of JAX's transformations (a trace-time rejection: ``compile_error``), and a function
  of the wrong arity called by the input pipeline's own frames (``input_pipeline``).

>>> doc = parse("TypeError: Pred must be a scalar, got JitTracer(bool[3]) of shape (3,).")
>>> recognise(doc)["compile_error"].subtype
'control_flow'
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .features import chain
from .knowledge.raised import (
    JAX_TRACE_WORDS,
    LINES,
    MESSAGES,
    PIPELINE_FRAMES,
    PLAIN_PYTHON,
    SHAPE_WORDS,
    SHARDING_WORDS,
    TRACING_PACKAGES,
    UNKNOWN_DIMS,
)
from .structure import ErrorDoc, parse

__all__ = ["Recognised", "recognise", "parse"]

_EVIDENCE = 300
# A data-dependent size (nonzero, unique, a boolean mask) behind a tracer error: a dynamic shape.
_DATA_SIZE = re.compile(
    r"nonzero|argwhere|unique|[Bb]oolean ind|NonConcreteBoolean|size argument|\bsize=|mask|repeat|compress|"
    r"bincount|extract\b|setdiff1d|union1d|intersect1d|setxor1d|in1d|isin\b"
)
_JAX_NOTICE = (
    "JAX has removed its internal frames",
    "JAX_TRACEBACK_FILTERING",
    "JaxStackTraceBeforeTransformation",
)
# The input's dtype is what JAX refused (grad of integers, complex outputs): the dtype card's.
_DTYPE_WORDS = re.compile(
    r"dtype|real-valued|real- or complex|integer-valued|float0|holomorphic|as an abstract array|non-array"
)
_TRACE_CLASSES = frozenset({"TypeError", "ValueError", "IndexError"})
_ARITY = re.compile(
    r"takes \d+ positional arguments? but \d+ (?:was|were) given|missing \d+ required positional"
)
_DIMS = re.compile(r"[Dd]imensions? .{0,40}(?:are not compatible|must be equal|do not match)")
_SLICES = re.compile(r"tensorflow/python/data/ops/from_tensor(?:_slices)?_op\.py")
# glog fatal lines as libtpu and XLA print them, read before the prefix is stripped.
_GLOG_FATAL = re.compile(
    r"^(?:\[[^\]]{1,40}\]:?\s*)?F\d{4} [\d:.]+\s+\d+ ([\w./\-]+):\d+\] (.*)$", re.MULTILINE
)
_FATAL_KINDS = (
    (re.compile(r"hbm|memory|alloc|OOM", re.IGNORECASE), "oom", "fatal_memory"),
    (
        re.compile(
            r"ici|dcn|megascale|topology|barrier|heartbeat|peer|connect|slice|coordinat|chip|accel|"
            r"tpu_hal|tpu_driver|pjrt|device|host|timed? ?out|deadline|unavailable",
            re.IGNORECASE,
        ),
        "connection_loss",
        "tpu_runtime",
    ),
    (re.compile(r"mosaic|vmem|hlo|xla/service|compil", re.IGNORECASE), "compile_error", "compiler_check"),
)


class Recognised(NamedTuple):
    confidence: float
    line: int | None  # line of the region (1-based) the evidence is on
    evidence: str
    subtype: str
    refines: tuple[str, ...] = ()


def recognise(doc: ErrorDoc, text: str = "") -> dict[str, Recognised]:
    """The categories the error's structure and templates point at, with the evidence line.

    ``text`` is the region ``doc`` was parsed from (for glog fatal lines, read with their prefix).
    """
    found: dict[str, Recognised] = {}
    excs = chain(doc)
    messages = [(e.line, e.message) for e in excs]
    messages += [(n, [t]) for n, t in doc.error_lines[-8:]] + [(n, [t]) for n, t in doc.checks[-4:]]
    for line, parts in messages:
        message = " ".join(parts)
        for t in MESSAGES:
            m = t.pattern.search(message)
            if not m:
                continue
            if t.subtype == "traced_value" and _DATA_SIZE.search(message):
                continue
            # Quote the line of the message that shows it, numbered as the log numbers it.
            at, part = _part(parts, m.start())
            number = _number(doc, line, part) if at else line
            quoted = _quote(part, m.start() - _offset(parts, at))
            _keep(found, t.category, Recognised(t.weight, number, quoted, t.subtype, t.refines))
    for line, body in doc.lines[-400:]:
        if line in doc.quiet:
            continue
        for t in LINES:
            m = t.pattern.search(body)
            if m:
                _keep(
                    found,
                    t.category,
                    Recognised(t.weight, line, _quote(body, m.start()), t.subtype, t.refines),
                )
    _structural(doc, excs, found, text)
    return found


def _structural(doc: ErrorDoc, excs: list, found: dict[str, Recognised], text: str) -> None:
    root = excs[0] if excs else None
    if root is not None and root.name in _TRACE_CLASSES and root.module in ("", "builtins"):
        message = root.text
        jax_raised = any(n in text for n in _JAX_NOTICE) or any(
            f.package in ("jax", "jaxlib") for f in root.frames
        )
        library = [f.package for f in root.frames if f.package]
        # Raised by the code of a framework that traces or builds programs (its innermost frame).
        framework_raised = jax_raised or bool(library) and library[-1] in TRACING_PACKAGES
        generic = not PLAIN_PYTHON.search(message) and not _DTYPE_WORDS.search(message)
        through_pipeline = any(PIPELINE_FRAMES.search(f.path) for f in root.frames)
        quoted = _quote(f"{root.qualname}: {message}", 0)
        if framework_raised and generic and SHARDING_WORDS.search(message):
            _keep(found, "strategy_scope", Recognised(0.8, root.line, quoted, "sharding", ("compile_error",)))
        elif jax_raised and generic and JAX_TRACE_WORDS.search(message):
            _keep(found, "compile_error", Recognised(0.8, root.line, quoted, "jax_trace"))
        elif (
            framework_raised
            and generic
            and not through_pipeline
            and SHAPE_WORDS.search(message)
            and not UNKNOWN_DIMS.search(message)
        ):
            # The framework's own check of shapes, ranks or tree structure while it traced or built
            # the program (concatenate, transpose, reshape, a layer's build): rejected before it ran.
            _keep(found, "compile_error", Recognised(0.75, root.line, quoted, "shape_mismatch"))
    # TF re-raises an error from a traced function as "ValueError: in user code:" with the original
    # exception indented below it; the frames belong to the outer one.
    at = doc.exceptions.index(root) if root is not None else 0
    outer = [doc.exceptions[at - 1]] if at and doc.exceptions[at - 1].text.startswith("in user code") else []
    for exc in outer + excs:
        if any(PIPELINE_FRAMES.search(f.path) for f in exc.frames):
            # Raised through the dataset's own call of the user's function: the pipeline's error.
            arity = exc.name == "TypeError" and _ARITY.search(exc.text)
            subtype = "map_function" if arity else "input_fn"
            hit = Recognised(
                0.9 if arity else 0.84, exc.line, _quote(f"{exc.qualname}: {exc.text}", 0), subtype
            )
            _keep(found, "input_pipeline", hit)
            break
    if "Grain has removed its internal frames" in text:
        # Grain filters its frames but says so: the error came out of a Grain pipeline (rule 6).
        last = excs[-1] if excs else None
        quoted = _quote(f"{last.qualname}: {last.text}", 0) if last else "raised inside a Grain pipeline"
        _keep(found, "input_pipeline", Recognised(0.88, last.line if last else None, quoted, "grain"))
    for exc in excs:
        if _DIMS.search(exc.text) and any(_SLICES.search(f.path) for f in exc.frames):
            # Features and labels of different lengths given to from_tensor_slices.
            _keep(found, "input_pipeline", Recognised(0.88, exc.line, _quote(exc.text, 0), "slices"))
    if "F" in text:
        starts = None
        for m in _GLOG_FATAL.finditer(text):
            source, message = m.group(1), m.group(2)
            for pattern, category, subtype in _FATAL_KINDS:
                if pattern.search(source) or pattern.search(message):
                    if starts is None:
                        starts = _line_starts(text)
                    line = _line_of(starts, m.start())
                    _keep(found, category, Recognised(0.82, line, _quote(m.group(0), 0), subtype))
                    break


def _part(parts: list[str], pos: int) -> tuple[int, str]:
    """Which line of a message (its parts joined by spaces) holds position ``pos``."""
    start = 0
    for i, part in enumerate(parts):
        if pos < start + len(part) + 1:
            return i, part
        start += len(part) + 1
    return len(parts) - 1, parts[-1]


def _offset(parts: list[str], index: int) -> int:
    return sum(len(p) + 1 for p in parts[:index])


def _number(doc: ErrorDoc, after: int, body: str) -> int:
    """The log line of a message's continuation line (the first one so written after ``after``)."""
    return next((n for n, text in doc.lines if n > after and text == body), after)


def _keep(found: dict[str, Recognised], category: str, hit: Recognised) -> None:
    old = found.get(category)
    if old is None or hit.confidence > old.confidence:
        found[category] = hit


def _quote(text: str, at: int) -> str:
    text = text.strip()
    if len(text) <= _EVIDENCE:
        return text
    start = max(0, at - _EVIDENCE // 3)
    return text[start : start + _EVIDENCE].strip()


def _line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    i = find("\n")
    while i != -1:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


def _line_of(starts: list[int], pos: int) -> int:
    import bisect

    return bisect.bisect_right(starts, pos)
