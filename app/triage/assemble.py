"""Finding the error in a log: tracebacks, chained exceptions, glog lines and re-raises.

The :class:`Assembler` sees the interesting lines of a log in order (the engine hands it only lines
that hold an anchor, so it never touches ordinary output) and keeps a small, bounded state:

- the frames of the current Python traceback, to name the innermost frame in the user's own code;
- the error events (uncaught exceptions, TF's ``Error recorded from ...``, glog ``E``/``F`` lines),
  so the *root* error is the first one, not the last echo;
- where the log is in an exception chain: after ``During handling of the above exception`` or
  ``The above exception was the direct cause`` the later errors are consequences, and after TF's
  ``Reraising captured error`` they are echoes. Lines there weigh a little less, as do warnings
  that say the operation will be retried.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Anchors the engine must route to the assembler even when no signature wants the line.
ANCHORS = ("Traceback", 'File "', "File ~", "ipython-input", "Cell In[", "xception", "rror", "Reraising")

_PREFIXES = (
    # glog / absl: I0403 09:00:11.077040 140542806840704 multi_init.py:172]
    re.compile(r"^([IWEF])\d{4} \d\d:\d\d:\d+\.\d+\s+\d+\s+[\w.\-]+:\d+\]\s?"),
    # TensorFlow C++: 2020-04-03 09:00:45.480838: W tensorflow/core/...cc:157]
    re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+: ([IWEF])(?:\s+\d+)? [\w/.\-]+:\d+\]\s?"),
    # Python logging: INFO:tensorflow: / WARNING:absl: / ERROR:root:
    re.compile(r"^(INFO|WARNING|ERROR|CRITICAL|FATAL):[\w.]*:\s?"),
    # A level, a month-day time and the file (vLLM and the like): ERROR 07-07 18:02:56 [core.py:519]
    re.compile(
        r"^(INFO|WARNING|ERROR|CRITICAL|DEBUG)\s+\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\s+\[[\w./\-]+:\d+\]\s?"
    ),
    # Plain timestamps and host tags: [2024-01-01 10:00:00,123] / 2024-01-01T10:00:00Z
    re.compile(r"^\[?\d{4}-\d\d-\d\d[ T][\d:.,]+Z?\]?\s*(?:-\s*)?()"),
)
# Launchers that tag each process's lines: torchrun "[rank0]: " / "[default0]:", OpenMPI
# "[1,0]<stderr>:", JAX multi-host wrappers "[process 3] ", "[worker-3] ".
_RANK = re.compile(
    r"^(?:\[(?:rank|default|local_rank|process|worker|host)[ _-]?\d+\]:?|\[\d+,\d+\]<std(?:out|err)>:) ?"
)
_LEVELS = {"E": "E", "F": "F", "ERROR": "E", "CRITICAL": "F", "FATAL": "F", "DEBUG": "I"}

_EXC = re.compile(
    r"^\s*(?:\w{1,12}: )?([A-Za-z_][\w.]*(?:Error|Exception|Exit|Failure|Interrupt))"
    r"(?:\s*\(see above for traceback\))?(?::\s?(.*)|\s*$)"
)
_RECORDED = re.compile(r"Error recorded from (\w+): ?(.*)")
_FRAME_PATTERNS = (
    re.compile(r'^\s*(?:\w{1,12}: )?File "([^"]+)", line (\d+)(?:, in (\S+))?'),
    re.compile(r"^\s*File (~?[^\s:]+\.py):(\d+)(?:, in (\S+))?"),
    re.compile(r"^\s*Cell (In\[\d+\]), line (\d+)()"),
    re.compile(r"^\s*(<ipython-input-[\w-]+>) in (\S+)()"),
)
_LIBRARY_MARKERS = (
    "site-packages",
    "dist-packages",
    "/lib/python",
    "<frozen",
    "importlib",
    "/usr/lib/",
    "runpy.py",
    "threading.py",
    "/absl/",
    "bazel-out",
)
_NOT_ERRORS = ("SimplifiedTraceback",)
_RETRY = re.compile(r"maybe retrying|[Rr]etrying|will retry|[Rr]etry(?:ing)? in ")
_MAX_FRAMES = 64
_MAX_EVENTS = 32


@dataclass(frozen=True)
class ErrorEvent:
    """One error the log reports: an exception, a recorded error or a glog E/F line."""

    kind: str  # "exception", "recorded", "glog"
    line: int
    text: str
    exc_type: str = ""
    user_frame: str | None = None


def strip_prefix(line: str) -> tuple[str, str]:
    """Split a log line into (level, message) without its glog / logging / timestamp header.

    >>> strip_prefix("E0221 12:00:00.000000 1234 client.cc:80] boom")
    ('E', 'boom')
    """
    tag = _RANK.match(line)
    if tag:  # every rank of a multi-process launch tags its lines: the message follows the tag
        line = line[tag.end() :]
    for pattern in _PREFIXES:
        m = pattern.match(line)
        if m:
            return _LEVELS.get(m.group(1), m.group(1)[:1] if m.group(1) else ""), line[m.end() :]
    return "", line


def is_user_file(path: str) -> bool:
    """True for a frame in the user's own code rather than a library or the interpreter."""
    return not any(marker in path for marker in _LIBRARY_MARKERS)


class Assembler:
    """Streaming structure of a log; feed it interesting lines in order with their numbers."""

    def __init__(self) -> None:
        self.events: list[ErrorEvent] = []
        self._frames: list[tuple[str, str, str]] = []
        self._user_frame: str | None = None
        self.last_user_frame: str | None = None
        self._chain_weight = 1.0

    @property
    def user_frame(self) -> str | None:
        """Innermost user frame of the traceback being read (or the last one finished)."""
        return self._user_frame or self.last_user_frame

    def observe(self, line: str, lineno: int) -> float:
        """Take one line; return how much a signature match on it should count (0..1)."""
        level, message = strip_prefix(line)
        weight = self._chain_weight
        if "Traceback (most recent call last)" in message:
            self._frames.clear()
            self._user_frame = None
            return weight
        if self._take_frame(message):
            return weight
        if "xception" in message:
            if "During handling of the above exception" in message:
                self._chain_weight = min(self._chain_weight, 0.95)
                return weight
            if "above exception was the direct cause" in message:
                self._chain_weight = min(self._chain_weight, 0.97)
                return weight
        if "Reraising captured error" in message:
            self._chain_weight = min(self._chain_weight, 0.97)
            return weight
        self._take_event(level, message, lineno)
        if _RETRY.search(message):
            weight *= 0.9
        return weight

    def root_event(self) -> ErrorEvent | None:
        """The error that started it: the first uncaught exception, else the first recorded
        error, else the first glog E/F line."""
        for kind in ("exception", "recorded", "glog"):
            for event in self.events:
                if event.kind == kind:
                    return event
        return None

    def _take_frame(self, message: str) -> bool:
        for pattern in _FRAME_PATTERNS:
            m = pattern.match(message)
            if m:
                path, lineno = m.group(1), m.group(2)
                if len(self._frames) >= _MAX_FRAMES:
                    del self._frames[: _MAX_FRAMES // 2]
                self._frames.append((path, lineno, m.group(3) or ""))
                if is_user_file(path):
                    where = f"{path}:{lineno}" if lineno.isdigit() else f"{path} in {lineno}"
                    self._user_frame = where
                    self.last_user_frame = where
                return True
        return False

    def _take_event(self, level: str, message: str, lineno: int) -> None:
        if len(self.events) >= _MAX_EVENTS:
            return
        m = _EXC.match(message)
        if m and not any(n in m.group(1) for n in _NOT_ERRORS):
            self.events.append(
                ErrorEvent("exception", lineno, message.strip()[:500], m.group(1), self._user_frame)
            )
            # Frames printed after an exception belong to a new section ("The op is created at").
            self._frames.clear()
            return
        m = _RECORDED.search(message)
        if m:
            self.events.append(ErrorEvent("recorded", lineno, m.group(2)[:500], m.group(1), self._user_frame))
            return
        if level in ("E", "F"):
            self.events.append(ErrorEvent("glog", lineno, message.strip()[:500], level, self._user_frame))
