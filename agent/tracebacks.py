"""Turns a stream of output lines into error events: one per Python traceback (chained
exceptions stay together), with the lines that came before it as context.

Feed it lines with ``feed(line, number)``; it returns finished errors. ``idle()`` finishes a
traceback whose exception line came a while ago with nothing after it (a process that printed an
exception and then hung: no next line will ever close it). Call ``flush()`` at the end.
"""

from __future__ import annotations

import re
import time
from collections import deque
from dataclasses import dataclass

_START = "Traceback (most recent call last):"
_CHAIN = re.compile(
    r"^(The above exception was the direct cause of the following exception:"
    r"|During handling of the above exception, another exception occurred:)\s*$"
)
# The closing line of a traceback: a (dotted) exception name, then ": message" or nothing.
_EXC_LINE = re.compile(
    r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning|Failure|Exhausted|Fault)\b[\w.]*(:.*)?$"
    r"|^[A-Za-z_][\w.]*: "
)
_GLOG_FATAL = re.compile(r"^F\d{4} \d\d:\d\d:\d\d")
MAX_LINES = 400
MAX_CHARS = 64 * 1024
QUIET_S = 2.0  # an exception line with nothing after it for this long ends its traceback


@dataclass
class ErrorText:
    text: str
    context: list[str]
    exception: str  # the closing line: "ValueError: ..."
    first_line: int | None = None  # the text's first and last lines' numbers in the output
    last_line: int | None = None


class TracebackAssembler:
    def __init__(self, context_lines: int = 40, tail_lines: int = 30, recent: deque | None = None) -> None:
        # ``recent`` may be shared by the assemblers of stdout and stderr: context from both.
        self._recent: deque[str] = recent if recent is not None else deque(maxlen=context_lines)
        self._tail_lines = tail_lines
        self._buf: list[str] | None = None
        self._context: list[str] = []
        self._exc: str | None = None
        self._after_exc = 0
        self._chars = 0
        self._first: int | None = None
        self._last: int | None = None
        self._fed_at = 0.0

    def feed(self, line: str, number: int | None = None) -> list[ErrorText]:
        """``number``: the line's number in the output (the live log's), so an error names the
        lines it spans the way the job page numbers them."""
        line = line.rstrip("\r\n")
        self._fed_at = time.monotonic()
        out: list[ErrorText] = []
        if self._buf is None:
            if line.startswith(_START) or line.strip() == _START:
                self._begin(line)
                self._first = self._last = number
            elif _GLOG_FATAL.match(line):
                out.append(ErrorText(line, list(self._recent), line, number, number))
                self._recent.append(line)
            else:
                self._recent.append(line)
            return out
        # Inside a traceback.
        stripped = line.strip()
        if self._exc is None:
            if line.startswith((" ", "\t")) or not stripped or _CHAIN.match(stripped):
                self._add(line, number)
            elif _EXC_LINE.match(line):
                self._add(line, number)
                self._exc = line
                self._after_exc = 0
            else:
                self._add(line, number)  # odd frame text (e.g. a C++ frame); keep going
            return out
        # After the exception line: its message may go on for lines, or the exception is chained.
        if not stripped:
            # Blank lines and frames do not count towards the tail: TF's "Graph execution error:"
            # lists the failing op's frames ("Detected at node ... defined at") before its message.
            self._add(line, number)
            return out
        if _CHAIN.match(stripped):
            self._add(line, number)
            self._exc = None
            return out
        if (
            self._after_exc < self._tail_lines
            and not line.startswith(_START)
            and not _looks_like_new_record(line)
        ):
            self._add(line, number)
            if not stripped.startswith('File "'):
                self._after_exc += 1
            return out
        out.append(self._finish())
        out.extend(self.feed(line, number))
        return out

    def idle(self, quiet: float = QUIET_S) -> list[ErrorText]:
        """The traceback being read, finished, when its exception line came and nothing has
        followed for ``quiet`` seconds; else nothing."""
        if self._buf is None or self._exc is None or time.monotonic() - self._fed_at < quiet:
            return []
        return [self._finish()]

    def flush(self) -> list[ErrorText]:
        if self._buf is None:
            return []
        return [self._finish()]

    def _begin(self, line: str) -> None:
        self._buf = [line]
        self._chars = len(line)
        self._context = list(self._recent)
        self._exc = None
        self._after_exc = 0

    def _add(self, line: str, number: int | None = None) -> None:
        assert self._buf is not None
        if len(self._buf) < MAX_LINES and self._chars < MAX_CHARS:
            self._buf.append(line)
            self._chars += len(line) + 1
            if line.strip():
                self._last = number if number is not None else self._last

    def _finish(self) -> ErrorText:
        buf = self._buf or []
        while buf and not buf[-1].strip():
            buf.pop()
        err = ErrorText(
            "\n".join(buf), self._context, self._exc or (buf[-1] if buf else ""), self._first, self._last
        )
        self._recent.extend(buf[-5:])
        self._buf = None
        self._exc = None
        return err


_RECORD = re.compile(r"^(\[?\d{4}-\d\d-\d\d|[IWEF]\d{4} |INFO|WARNING|ERROR|DEBUG|Epoch \d|\d+/\d+ )")


def _looks_like_new_record(line: str) -> bool:
    """A line that starts a new log record rather than continuing an exception message."""
    return bool(_RECORD.match(line))
