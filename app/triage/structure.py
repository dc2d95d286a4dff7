"""What an error says beyond its words: a parser over the assembled error text.

:func:`parse` reads an error region (a pasted error, or the tail of a log) into an
:class:`ErrorDoc`: the exceptions in order with their qualified class, module, message and the
frames each was raised through, the status codes (``RESOURCE_EXHAUSTED``, TF's error classes), the
TF op / node types (``IteratorGetNext``, ``SaveV2``), XLA's error codes (``E1000``), the framework,
and the lines that say what happened. The classifier scores categories from these (see
:mod:`.features`); the alerts quote :func:`summary_line`.

>>> doc = parse('''Traceback (most recent call last):
...   File "/site-packages/orbax/checkpoint/checkpoint_manager.py", line 9, in restore
... ValueError: tree structures do not match''')
>>> doc.final.qualname, doc.frames[0].path.endswith("checkpoint_manager.py")
('ValueError', True)

Lines tpuwatch's own agent prints (``tpuwatch: ...``) are never part of the error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .assemble import strip_prefix

MAX_LINES = 4000  # a pasted error is far shorter; a log is parsed from its tail (see engine)
_MAX_MESSAGE = 40

OWN_PREFIX = "tpuwatch:"

_EXC = re.compile(
    r"^(?P<q>(?:[A-Za-z_]\w*\.)*_?[A-Z]\w*(?:Error|Exception|Exit|Failure|Interrupt|Warning|Operation)|"
    r"StopIteration|StopAsyncIteration|KeyboardInterrupt)"
    r"(?:\s*\(see above for traceback\))?(?::\s?(?P<m>.*)|\s*$)"
)
# IPython's header: "OutOfRangeError                           Traceback (most recent call last)".
_IPY_HEADER = re.compile(r"^([A-Za-z_][\w.]*)\s{3,}Traceback \(most recent call last\)")
_FRAMES = (
    re.compile(r'^File "(?P<p>[^"]+)", line (?P<l>\d+)(?:, in (?P<f>\S+))?'),
    re.compile(r"^File (?P<p>~?[^\s:]+\.py):(?P<l>\d+)(?:, in (?P<f>[\w.<>]+))?"),
    re.compile(r"^(?P<p>(?:~|/)[^\s:]+\.py) in (?P<f>[\w.<>]+)\("),
    re.compile(r"^(?P<p><ipython-input-[\w-]+>) in (?P<f>\S+)"),
    re.compile(r"^Cell (?P<p>In\[\d+\]), line (?P<l>\d+)"),
)
# JAX's note that it filtered its frames is printed as an exception of its own.
_NOT_ERRORS = re.compile(r"SimplifiedTraceback|UnfilteredStackTrace")
# ... or as the prefix of the exception it wraps ("jax._src.traceback_util.UnfilteredStackTrace:
# jax.errors.TracerBoolConversionError: ..."): the wrapped one is the error.
_WRAPPER = re.compile(r"^(?:[\w.]+\.)?(?:UnfilteredStackTrace|SimplifiedTraceback): (?=[\w.]+: )")
_ARGS_RECEIVED = re.compile(r"^(?:Call a|A)rguments received by ")
_ANSI = re.compile(r"\x1b?\[\d+(?:;\d+)*m")
_CHAIN_CAUSE = "above exception was the direct cause"
_CHAIN_DURING = "During handling of the above exception"
_TF_DETECTED = re.compile(r"^Detected at node '?([\w/.\-]+)'?")
_TF_CAUSED_BY_OP = re.compile(r"^Caused by op '?([\w/.\-]+)'?")
_CODES = (
    "RESOURCE_EXHAUSTED",
    "INVALID_ARGUMENT",
    "UNAVAILABLE",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "DATA_LOSS",
    "UNAUTHENTICATED",
    "CANCELLED",
)
_STATUS = re.compile(r"\b(" + "|".join(_CODES) + r")\b(?::|\]| \(|$)")
# TF 1.x / 2.x words for the same codes: "(0) Invalid argument: ...", "Resource exhausted: ...".
_STATUS_WORDS = {
    "Resource exhausted": "RESOURCE_EXHAUSTED",
    "Invalid argument": "INVALID_ARGUMENT",
    "Unavailable": "UNAVAILABLE",
    "Deadline exceeded": "DEADLINE_EXCEEDED",
    "Out of range": "OUT_OF_RANGE",
    "Unimplemented": "UNIMPLEMENTED",
    "Data loss": "DATA_LOSS",
    "Permission denied": "PERMISSION_DENIED",
    "Failed precondition": "FAILED_PRECONDITION",
}
_STATUS_WORD = re.compile(r"(?:^|\(\d+\) |\s)(" + "|".join(_STATUS_WORDS) + r"): ")
# tensorflow.python.framework.errors_impl.<Class>: the class is the status.
_TF_CLASSES = {
    "ResourceExhaustedError": "RESOURCE_EXHAUSTED",
    "InvalidArgumentError": "INVALID_ARGUMENT",
    "UnavailableError": "UNAVAILABLE",
    "DeadlineExceededError": "DEADLINE_EXCEEDED",
    "NotFoundError": "NOT_FOUND",
    "AlreadyExistsError": "ALREADY_EXISTS",
    "PermissionDeniedError": "PERMISSION_DENIED",
    "FailedPreconditionError": "FAILED_PRECONDITION",
    "AbortedError": "ABORTED",
    "OutOfRangeError": "OUT_OF_RANGE",
    "UnimplementedError": "UNIMPLEMENTED",
    "InternalError": "INTERNAL",
    "DataLossError": "DATA_LOSS",
    "UnauthenticatedError": "UNAUTHENTICATED",
    "CancelledError": "CANCELLED",
}
_NODE = re.compile(
    r"\{\{node ([^}\s]+)\}\}|\[\[node ([\w/.\-]+)|\[Op:(\w+)\]|\bNode: ([\w/.\-]+) ="
    r"|^Detected at node '?([\w/.\-]+)'?|^Caused by op '?([\w/.\-]+)'?"
)
_NOT_MEMORY = re.compile(r"larger than max|[Qq]uota|[Rr]ate limit|capacity in the zone")
_XLA_CODE = re.compile(r"\b(E[0-3]\d{3})\b")
_GLOG_CHECK = re.compile(r"Check failed: (.*)")
_FRAMEWORK_MODULES = (
    ("torch_xla", "pytorch-xla"),
    ("torch", "pytorch"),
    ("jax", "jax"),
    ("jaxlib", "jax"),
    ("flax", "jax"),
    ("optax", "jax"),
    ("orbax", "jax"),
    ("keras", "keras"),
    ("tf_keras", "keras"),
    ("tensorflow", "tensorflow"),
)
_SITE = re.compile(r"(?:site|dist)-packages/([A-Za-z_]\w*)")


@dataclass(frozen=True)
class Frame:
    path: str
    func: str
    line: int  # the line of the log it was printed on

    @property
    def package(self) -> str:
        """The top-level package of a library frame ("jax", "orbax"), or "" for the user's code."""
        m = _SITE.search(self.path)
        return m.group(1) if m else ""


@dataclass
class Exc:
    """One exception (or TF recorded error) the text reports."""

    qualname: str
    line: int
    message: list[str] = field(default_factory=list)  # its first line and continuation lines
    frames: list[Frame] = field(default_factory=list)  # the traceback printed before it
    chained: str = ""  # "cause" or "during": how it relates to the exception before it

    @property
    def name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def module(self) -> str:
        return self.qualname.rsplit(".", 1)[0] if "." in self.qualname else ""

    @property
    def text(self) -> str:
        return " ".join(self.message)


@dataclass
class ErrorDoc:
    """The structure of an error text."""

    exceptions: list[Exc] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)  # op types, e.g. "IteratorGetNext"
    xla_codes: list[str] = field(default_factory=list)
    checks: list[tuple[int, str]] = field(default_factory=list)  # glog "Check failed" lines
    error_lines: list[tuple[int, str]] = field(default_factory=list)  # glog E/F lines
    lines: list[tuple[int, str]] = field(default_factory=list)  # every non-blank line, unprefixed
    header_classes: list[str] = field(default_factory=list)  # IPython's "XError   Traceback ..."
    quiet: set[int] = field(default_factory=set)  # lines logged at INFO level

    @property
    def final(self) -> Exc | None:
        """The exception that ended the program (the last one printed)."""
        return self.exceptions[-1] if self.exceptions else None

    @property
    def root(self) -> Exc | None:
        """The first exception of the last chain: the cause the others wrap or report."""
        if not self.exceptions:
            return None
        i = len(self.exceptions) - 1
        while i > 0 and self.exceptions[i].chained:
            i -= 1
        return self.exceptions[i]

    @property
    def framework(self) -> str:
        names = [e.qualname for e in self.exceptions] + [f.package for f in self.frames]
        for name in reversed(names):
            top = name.split(".", 1)[0]
            for module, framework in _FRAMEWORK_MODULES:
                if top == module:
                    return framework
        return ""


def is_own_line(line: str) -> bool:
    """True for a line tpuwatch's own agent printed: never evidence about the job."""
    return line.lstrip().startswith(OWN_PREFIX)


def op_type(node: str) -> str:
    """The op type of a TF node name: ``model/reshape/Reshape_1`` -> ``Reshape``."""
    last = node.rstrip("/").rsplit("/", 1)[-1]
    return re.sub(r"_\d+$", "", last.split(":", 1)[0])


def _unprefix(line: str) -> tuple[str, str]:
    level, message = strip_prefix(line)
    # Old JAX wrapped the exception in its own name ("FilteredStackTrace: RuntimeError: ...").
    if message.startswith("FilteredStackTrace: "):
        message = message[len("FilteredStackTrace: ") :]
    # Hosts and launchers that tag every line ("err: ", "[worker-3] "): keep what follows.
    m = re.match(r"^(?:\w{1,8}: |\[[\w\-:. ]{1,40}\] )(?=\S)", message)
    if m and (_EXC.match(message[m.end() :]) or message[m.end() :].startswith(("File ", "Traceback"))):
        message = message[m.end() :]
    return level, message


def parse(text: str) -> ErrorDoc:
    """Parse an error text (a paste or a log's tail) into its structure."""
    doc = ErrorDoc()
    raw = text.splitlines()
    offset = max(0, len(raw) - MAX_LINES)
    frames: list[Frame] = []
    current: Exc | None = None  # the exception whose message the next plain lines continue
    resume: Exc | None = None  # TF prints the message after the "Detected at node" frames
    chain = ""
    for number, original in enumerate(raw[offset:], offset + 1):
        if is_own_line(original):
            current = None
            continue
        level, line = _unprefix(original)
        body = _ANSI.sub("", line).strip()
        if not body:
            continue
        doc.lines.append((number, body))
        _scan_markers(doc, body, number)
        if level:
            current = None
            if level in ("I", "INFO"):
                doc.quiet.add(number)
            if level in ("E", "F"):
                doc.error_lines.append((number, body))
        if "Traceback (most recent call last)" in body:
            frames, current, resume = [], None, None
            m = _IPY_HEADER.match(body)
            if m:  # IPython names the class first; the message (if pasted) comes at the end
                doc.header_classes.append(m.group(1))
            continue
        frame = _frame(body, number)
        if frame is not None:
            frames.append(frame)
            doc.frames.append(frame)
            current = None
            continue
        if body.startswith("----------") and not body.strip("-"):
            # JAX ends a message with a rule and its traceback-filtering notice: not the message.
            current = resume = None
            continue
        if _CHAIN_CAUSE in body or _CHAIN_DURING in body:
            chain = "cause" if _CHAIN_CAUSE in body else "during"
            current = resume = None
            continue
        m = _EXC.match(_WRAPPER.sub("", body, count=1) if "Trace" in body else body)
        if m and not m.group("q").endswith("Warning") and not _NOT_ERRORS.search(m.group("q")):
            message = (m.group("m") or "").strip()
            current = Exc(m.group("q"), number, [message] if message else [], frames, chain)
            doc.exceptions.append(current)
            frames, chain, resume = [], "", None
            status = _TF_CLASSES.get(current.name)
            if status:
                doc.statuses.append(status)
            continue
        if current is None and resume is not None and not level:
            current = resume
        if _ARGS_RECEIVED.match(body):  # Keras lists the call's arguments: not the message
            current = resume = None
            continue
        if current is not None and len(current.message) < _MAX_MESSAGE and not _is_code_echo(original):
            if _TF_DETECTED.match(body) or _TF_CAUSED_BY_OP.match(body):
                resume = current
            current.message.append(body)
    return doc


def _frame(body: str, number: int) -> Frame | None:
    for pattern in _FRAMES:
        m = pattern.match(body)
        if m:
            groups = m.groupdict()
            return Frame(groups["p"], groups.get("f") or "", number)
    return None


def _is_code_echo(original: str) -> bool:
    # The source line Python prints under a frame is indented by four spaces; IPython's by "--> 12".
    return original.startswith("    ") and not original.startswith("     ") or original.startswith("-->")


def _scan_markers(doc: ErrorDoc, body: str, number: int) -> None:
    if "_" in body or ":" in body:
        for m in _STATUS.finditer(body):
            if m.group(1) == "RESOURCE_EXHAUSTED" and _NOT_MEMORY.search(body):
                continue  # gRPC's message-size limit, a cloud quota: not device memory
            doc.statuses.append(m.group(1))
        for m in _STATUS_WORD.finditer(body):
            doc.statuses.append(_STATUS_WORDS[m.group(1)])
    if "ode" in body or "[Op:" in body or "op " in body:
        for m in _NODE.finditer(body):
            name = next(g for g in m.groups() if g)
            if not name.startswith("__inference") and "function_node" not in name:
                doc.nodes.append(op_type(name))
    if "E" in body:
        doc.xla_codes.extend(_XLA_CODE.findall(body))
    if "Check failed" in body:
        m = _GLOG_CHECK.search(body)
        if m:
            doc.checks.append((number, body[m.start() :]))
