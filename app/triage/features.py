"""From an error's structure to evidence for each category.

For every category the error could belong to, :func:`extract` measures a handful of *kinds* of
evidence, each a number (0 when absent): what the signatures matched (``rule``), the exception's
class (``exc``) and module (``module``), the status code (``status``), the failing TF op (``node``),
XLA's error code (``xla``), the library frames it was raised through (``frame``, and ``inner`` for
the innermost ones), the user's own function names (``user``), the category's vocabulary in the
message (``words``), words learned from the failure zoo (``learned``), and whether a shape mismatch
came before or after training had made progress (``shape_static`` / ``shape_late``).

The scorer (:mod:`.scorer`) weighs the kinds with learned weights, so a new wording still gets a card
when its class, frames and vocabulary agree. Each piece of evidence keeps a short reason and the
line it came from, so a card can say why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from .knowledge.frames import RULES as FRAME_RULES
from .knowledge.frames import USER_WORDS
from .knowledge.signals import EXCEPTIONS, MODULES, NODES, STATUSES, XLA_CODES
from .knowledge.words import WORDS
from .structure import ErrorDoc, Exc, Frame

CATEGORIES = (
    "oom",
    "dynamic_shape",
    "unsupported_op",
    "unsupported_dtype",
    "connection_loss",
    "local_filesystem",
    "strategy_scope",
    "input_pipeline",
    "checkpoint",
    "compile_error",
    "nan_inf",
)
KINDS = (
    "rule",
    "exc",
    "module",
    "status",
    "node",
    "xla",
    "frame",
    "inner",
    "user",
    "words",
    "learned",
    "shape_static",
    "shape_late",
)
_INNER = 3  # innermost library frames that count as "where it failed"
_WORDS_CAP = 2.0
_LEARNED_CAP = 4.0
_MAX_MESSAGE_CHARS = 6000
# Object reprs inside messages ("<KerasTensor shape=(None, 4), dtype=float32, ...>", "dtype=float32")
# describe the values involved, not the problem: their words would vote for the dtype category.
_REPR = re.compile(
    r"<(?!class )[^<>]{0,400}>|\bTensor\(\"[^\"]*\", shape=[^)]*\)|\bdtype=\w+"
    # TF's device and function names ("/job:localhost/replica:0/task:0/device:CPU:0") and its note that
    # a local rendezvous aborted: every TF error carries them, none says what went wrong.
    r"|/job:\w+(?:/replica:\d+)?(?:/task:\d+)?(?:/device:\w+:\d+)?|\{\{function_node [^}]*\}\}"
    r"|[Ll]ocal rendezvous is aborting with status:?"
)
_FAILURE_WORDS = re.compile(
    r"[Ee]rror|ERROR|[Ff]ail|FAIL|[Ee]xception|[Aa]bort|[Ff]atal|FATAL|[Uu]nable|[Cc]annot|[Cc]ould not|"
    r"[Ii]nvalid|[Ee]xceeded|[Ee]xhausted|[Nn]ot (?:supported|implemented|found)|[Uu]nsupported|[Cc]rash|"
    r"[Tt]erminat|[Kk]illed|[Hh]alted|[Tt]imed? ?out|[Rr]efused|[Ll]ost |NaN|\bnan\b|[Dd]iverg"
)
_INFO = re.compile(r"^(?:INFO|I\d{4}|\[?INFO\]?)\b")
_PATHS = re.compile(r"(?:gs|s3|hf|file)://\S+|(?<![\w.])(?:~|\.{1,2})?/(?:[\w.\-]+/)+[\w.\-]*")
_CKPT_PATH = re.compile(r"ckpt|checkpoint", re.IGNORECASE)
_OTHER_OBJECTS = re.compile(r"tfevents|\.tfrecords?\b|\.tfrec\b")
_TOKEN = re.compile(r"[a-z][a-z0-9_]{2,29}")
_SHAPE_MISMATCH = re.compile(
    r"incompatible shapes|input to reshape is a tensor with|cannot reshape|"
    r"total size of the (?:new )?(?:array|tensor)|"
    r"shapes? (?:must|should) (?:be equal|match)|dimensions must be equal|size-incompatible|shape mismatch|"
    r"contracting dimensions|incompatible with the layer|"
    r"(?:expected|requires) .{0,60}shape .{0,60}(?:got|but|received)|"
    r"(?:doesn't|does not|do not|don't) match .{0,30}shape|broadcast(?:ing)? .{0,40}(?:incompatible|shapes)|"
    r"requested shape|must have the same (?:shape|size|number)|in\[0\] mismatch in\[1\]|matrix size|"
    r"cannot be multiplied|must match the size of tensor|shapes .{0,60} are incompatible|incompatible shape|"
    # TensorFlow's shape functions (shape_inference.cc: WithRank, Merge; the reshape kernel).
    r"shape must be (?:at (?:least|most) )?rank \d+ but is rank|dimension must be \d+ but is \d+|"
    r"only one input size may be -1"
)
_LOOP_SHAPES = re.compile(
    r"(?:carry|loop|while_loop|fori_loop|scan)\b.{0,300}shapes? (?:do not|don't|does not) match|"
    r"shapes? of loop body"
)
# A scan's carry that comes out another shape than it went in: a scan runs a fixed number of times,
# so the carry was set up at the wrong shape (labelling guide: a while_loop's growing state is a
# dynamic shape, a scan's mismatched carry a compile error).
_SCAN_CARRY = re.compile(r"scan body function carry input and carry output")
_CONTROL_FLOW_TYPES = re.compile(
    r"(?:branch(?:es)?|carry|cond|switch)\b.{0,300}(?:dtypes?|types?|structures?|"
    r"weak[_ ]types?) (?:do not|don't|"
    r"does not) match|(?:branches|carry) .{0,80}must have (?:equal|identical|the same) (?:\w+ )?(?:types|"
    r"dtypes|structure)"
)
_NO_KERNEL = re.compile(r"no registered '(\w+)' opkernel")
_REQUESTED = re.compile(
    r"requested attributes:.{0,200}?=\[?(dt_(?:string|u?int8|u?int16|u?int64|double|complex128|half))\b"
)
# (Not _Arg: a string op's own inputs are string arguments too.)
_MOVE_OPS = {
    "identity",
    "const",
    "placeholder",
    "iteratorgetnext",
    "infeeddequeuetuple",
    "cast",
}
# Training had run before the error: Keras' "3/4 [===" or "3/4 ━━", "Epoch 2/", "step 1200".
_PROGRESS = re.compile(r"(?:^|\s)(?:[1-9]\d*/\d+ (?:\[|\S*━)|Epoch (?:[2-9]|\d\d+)/)|\bstep:? ?[1-9]\d*\b")


@dataclass
class Evidence:
    """Evidence for the categories: ``values[category][kind]`` and why."""

    values: dict[str, dict[str, float]] = field(default_factory=lambda: {c: {} for c in CATEGORIES})
    reasons: dict[tuple[str, str], tuple[str, int | None]] = field(default_factory=dict)
    # The strongest single vocabulary pattern per category (``words`` is their sum): one specific
    # phrase ("ret_check failure") says more than three generic ones ("xla", "jit", "shape").
    word_peak: dict[str, float] = field(default_factory=dict)
    # The error's root exception is a plain programming error (AttributeError, ImportError, ...)
    # raised outside the frameworks' own error hierarchies: a card then needs a specific anchor.
    program_error: str = ""

    def copy(self) -> Evidence:
        values = {c: dict(v) for c, v in self.values.items()}
        return Evidence(values, dict(self.reasons), dict(self.word_peak), self.program_error)

    def add(self, category: str, kind: str, value: float, reason: str, line: int | None = None) -> None:
        if category not in self.values or value <= self.values[category].get(kind, 0.0):
            return
        self.values[category][kind] = value
        self.reasons[(category, kind)] = (reason, line)


def chain(doc: ErrorDoc) -> list[Exc]:
    """The exceptions of the last chain: the root cause and what wrapped or followed it."""
    if not doc.exceptions:
        return []
    i = len(doc.exceptions) - 1
    while i > 0 and doc.exceptions[i].chained:
        i -= 1
    return doc.exceptions[i:]


def message_text(doc: ErrorDoc) -> str:
    """What the error says, lower-cased: exception messages, else error / check lines, else the tail."""
    parts = [e.text for e in doc.exceptions[-8:]]  # the class is the `exc` evidence, not words
    parts += [text for _, text in doc.error_lines[-8:]] + [text for _, text in doc.checks[-4:]]
    if not parts:  # no exception and no error-level line: only lines that read as failures count
        lines = [t for n, t in doc.lines[-40:] if n not in doc.quiet and not _INFO.match(t)]
        parts = [t for t in lines if _FAILURE_WORDS.search(t)][-8:]
    return _REPR.sub(" ", " ".join(parts)[-_MAX_MESSAGE_CHARS:]).lower()


def tokens(text: str) -> set[str]:
    """The distinct words of a lower-cased message (for the learned vocabulary), paths left out."""
    return set(_TOKEN.findall(_PATHS.sub(" ", text)))


def extract(
    doc: ErrorDoc,
    rules: Mapping[str, tuple[float, int | None, str]] | None = None,
    learned: Mapping[str, Mapping[str, float]] | None = None,
    text: str | None = None,
    suppress: set[str] | frozenset[str] = frozenset(),
) -> Evidence:
    """Evidence for every category from a parsed error.

    ``rules`` maps a category to its best signature match (confidence, line, evidence text);
    ``learned`` maps a word to its log-odds per category (from the scorer's weights); categories in
    ``suppress`` were replaced by a more specific signature and get no evidence.
    """
    ev = Evidence()
    ev.program_error = _program_error(doc)
    for category, (confidence, line, evidence) in (rules or {}).items():
        ev.add(category, "rule", confidence, f"signature: {evidence[:120]}", line)
    excs = chain(doc)
    for exc in excs:
        _exception(ev, exc)
    for name in doc.header_classes[-2:]:
        _exception(ev, Exc(name, 0))
    for status in set(doc.statuses):
        for category, strength in STATUSES.get(status, ()):
            ev.add(category, "status", strength, f"status {status}")
    for node in set(doc.nodes):
        for category, strength in NODES.get(node, ()):
            ev.add(category, "node", strength, f"op {node}")
    for code in set(doc.xla_codes):
        for prefix, category, strength in XLA_CODES:
            if code.startswith(prefix) and code != "E1001":
                ev.add(category, "xla", strength, f"XLA error {code}")
    frames = [f for e in excs for f in e.frames] or doc.frames[-40:]
    _frames(ev, frames)
    for exc in excs:
        library = [f for f in exc.frames if f.package]
        _frames(ev, library[-_INNER:], kind="inner")
    message = text if text is not None else message_text(doc)
    if "grain has removed its internal frames" in message:
        # Grain hides its frames, but says so: the error came out of a Grain input pipeline.
        ev.add("input_pipeline", "frame", 1.0, "raised inside a Grain input pipeline")
    _words(ev, message, learned)
    _shape(ev, doc, message)
    if _host_numpy_only(excs):
        # NumPy itself raised, on the host, before any framework saw the data: whatever the shapes
        # say, no program was compiled or traced.
        suppress = {*suppress, "compile_error", "dynamic_shape"}
    if "shape_late" in ev.values["dynamic_shape"] and ev.values["compile_error"].get("rule", 0.0) < 0.8:
        # The same program ran steps before its shapes stopped fitting: the data changed shape (a
        # partial batch), so the program itself compiles; its shape words are not a compile error
        # (nor is a framework's shape check read from its structure alone, below a template's 0.8).
        suppress = {*suppress, "compile_error"}
    if _SCAN_CARRY.search(message):
        ev.add("compile_error", "shape_static", 1.0, "a scan whose carry changes shape or type")
        suppress = {*suppress, "unsupported_dtype", "dynamic_shape"}
    elif _LOOP_SHAPES.search(message):
        # A loop's state grows or shrinks from one iteration to the next: a shape that depends on
        # the iteration, not a program whose pieces never fit.
        ev.add("dynamic_shape", "shape_late", 1.0, "loop state changes shape between iterations")
        ev.add("dynamic_shape", "rule", 0.8, "loop state changes shape between iterations")
        suppress = {*suppress, "compile_error"}
    elif _CONTROL_FLOW_TYPES.search(message):
        # Branches or a loop carry that disagree in type or structure: the program's own structure,
        # not a type the device lacks nor a shape that depends on data.
        ev.add("compile_error", "shape_static", 1.0, "control flow whose branches or carry disagree")
        suppress = {*suppress, "unsupported_dtype"}
    if doc.root is not None and _raised_by_user(doc, doc.root):
        # The user's own check (``raise ValueError(f"expected rank 3, got {x.shape}")``): no tracer or
        # compiler refused the program, whatever its words say about shapes.
        suppress = {*suppress, "compile_error"}
    if _kernel_dtype(ev, message):
        suppress = {*suppress, "unsupported_op"}
    for category in suppress:
        ev.values[category] = {}
        ev.word_peak.pop(category, None)
    return ev


# Python's own errors for a program that is wrong in itself: a missing module, key or attribute, a
# failed assertion (not NameError: JAX raises it for an axis name no transformation binds). The
# frameworks raise their own classes (or TypeError / ValueError / RuntimeError with a message) for
# what they check, so when the root cause is one of these, the error is about the user's code or
# environment unless something specific says otherwise.
PROGRAM_ERRORS = frozenset(
    "AttributeError ImportError ModuleNotFoundError KeyError SyntaxError IndentationError "
    "UnboundLocalError AssertionError RecursionError ZeroDivisionError".split()
)


def _program_error(doc: ErrorDoc) -> str:
    root = doc.root
    if root is None or root.name not in PROGRAM_ERRORS:
        return ""
    # Raised by the frameworks' own modules (jax.errors...., tensorflow....) it is theirs, not Python's.
    if root.module and root.module.split(".", 1)[0] not in ("builtins", "__main__"):
        return ""
    return root.name


def _raised_by_user(doc: ErrorDoc, root: Exc) -> bool:
    """A builtin exception whose innermost frame is the user's own ``raise`` statement, in a
    traceback no framework filtered (JAX and Keras hide their own frames, and say so)."""
    if root.module not in ("", "builtins") or not root.frames or root.frames[-1].package:
        return False
    if any(f.package for f in root.frames) or "internal frames" in " ".join(t for _, t in doc.lines[-60:]):
        return False
    last = root.frames[-1].line
    code = next((t for n, t in doc.lines if n > last), "")
    return code.lstrip().startswith("raise ")


def _exception(ev: Evidence, exc: Exc) -> None:
    name = exc.name.lstrip("_")
    if name not in EXCEPTIONS and name.endswith("MemoryError"):  # numpy's _ArrayMemoryError
        name = "MemoryError"
    for category, strength in EXCEPTIONS.get(name, ()):
        ev.add(category, "exc", strength, f"exception {exc.name}", exc.line or None)
    module = exc.module
    for prefix, category, strength in MODULES:
        if module == prefix or module.startswith(prefix + "."):
            ev.add(category, "module", strength, f"raised by {module}", exc.line or None)


def _frames(ev: Evidence, frames: list[Frame], kind: str = "frame") -> None:
    for frame in frames:
        if not frame.package:
            if kind == "frame":
                _user_frame(ev, frame)
            continue
        for path, func, category, strength in FRAME_RULES:
            if (path is None or path.search(frame.path)) and (func is None or func.search(frame.func)):
                where = frame.path.split("-packages/", 1)[-1]
                ev.add(category, kind, strength, f"raised in {where} ({frame.func})", frame.line)


def _user_frame(ev: Evidence, frame: Frame) -> None:
    # The function's name only: a file or folder name says where the code lives, not what failed.
    name = frame.func
    for pattern, category, strength in USER_WORDS:
        if pattern.search(name):
            ev.add(category, "user", strength, f"your code: {frame.func or frame.path}", frame.line)


def _words(ev: Evidence, message: str, learned: Mapping[str, Mapping[str, float]] | None) -> None:
    # Names inside paths ("gs://team-checkpoints/run7/encoder") are incidental: the prose counts
    # fully, a path that names a checkpoint only half.
    paths = _PATHS.findall(message)
    prose = _PATHS.sub(" ", message) if paths else message
    # A storage error about a TensorBoard event file or an input record file is not a checkpoint's.
    not_checkpoint = any(_OTHER_OBJECTS.search(p) for p in paths)
    for category, patterns in WORDS.items():
        total, said, peak = 0.0, [], 0.0
        for pattern, strength in patterns:
            m = pattern.search(prose)
            if m:
                total += strength
                peak = max(peak, strength)
                said.append(m.group(0))
        if category == "checkpoint" and not_checkpoint:
            continue
        if peak:
            ev.word_peak[category] = peak
        if category == "checkpoint" and any(_CKPT_PATH.search(p) for p in paths):
            total += 0.5
            said.append("a checkpoint path")
        if total:
            ev.add(category, "words", min(total, _WORDS_CAP), "words: " + ", ".join(said[:4]))
    if learned:
        sums: dict[str, float] = {}
        best: dict[str, list[tuple[float, str]]] = {}
        for token in tokens(message):
            for category, value in learned.get(token, {}).items():
                sums[category] = sums.get(category, 0.0) + value
                best.setdefault(category, []).append((value, token))
        for category, total in sums.items():
            top = ", ".join(t for _, t in sorted(best[category], reverse=True)[:4])
            ev.add(category, "learned", min(total, _LEARNED_CAP), f"learned words: {top}")


def _shape(ev: Evidence, doc: ErrorDoc, message: str) -> None:
    m = _SHAPE_MISMATCH.search(message)
    if not m:
        return
    first_error = min((e.line for e in doc.exceptions), default=None)
    progressed = any(
        _PROGRESS.search(text) for number, text in doc.lines if first_error is None or number < first_error
    )
    if progressed:
        # As sure as a signature: the same program ran before, so the data changed shape.
        reason = f"shape mismatch ({m.group(0)}) after steps had run"
        ev.add("dynamic_shape", "shape_late", 1.0, reason)
        ev.add("dynamic_shape", "rule", 0.8, reason)
    else:
        ev.add("compile_error", "shape_static", 1.0, f"shape mismatch ({m.group(0)}) before any step ran")


def _host_numpy_only(excs: list[Exc]) -> bool:
    """The root exception was raised inside NumPy (its innermost library frame), not a framework."""
    library = [f for f in excs[0].frames if f.package] if excs else []
    return bool(library) and library[-1].package == "numpy" and "." not in excs[0].qualname


def _kernel_dtype(ev: Evidence, message: str) -> bool:
    """TF found no kernel for an op that only moves data (an argument, an identity, a constant) with
    a type the device lacks: the data's type is the problem, not the op. True when so."""
    ops = set(_NO_KERNEL.findall(message))
    dtypes = set(_REQUESTED.findall(message))
    if ops & _MOVE_OPS and dtypes:
        ev.add(
            "unsupported_dtype", "node", 1.0, f"{'/'.join(sorted(ops & _MOVE_OPS))} of {sorted(dtypes)[0]}"
        )
        return True
    return False


def vector(ev: Evidence, category: str) -> list[float]:
    """The evidence for one category as a vector over :data:`KINDS`."""
    values = ev.values.get(category, {})
    return [values.get(kind, 0.0) for kind in KINDS]
