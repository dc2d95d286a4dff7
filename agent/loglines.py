"""The job's output lines on their way to the server (the live log): the sidecar's tee thread
pushes each line; the writer thread takes them into batches. Bounded: a full queue drops and
counts the line (in the monitor's ``dropped``), never blocks the tee (which must drain the child's
pipes)."""

from __future__ import annotations

import time
from collections import deque

from tpuwatch import wire


class LineQueue:
    def __init__(self, monitor, cap: int = 100_000) -> None:
        self._mon = monitor
        self._cap = cap
        self._q: deque = deque()
        self.seen = 0  # lines of output so far: the number of the last one

    def push(self, text: str, stream: str = "stdout") -> int:
        """Queue one line; returns its number (1-based) in this host's output."""
        self.seen += 1
        if len(self._q) < self._cap:
            self._q.append((time.time(), self.seen, stream, text[: wire.MAX_LOG_LINE_CHARS]))
        else:
            self._mon.dropped += 1
        return self.seen

    def take(self, room: int) -> list:
        q = self._q
        return [q.popleft() for _ in range(min(len(q), room, wire.MAX_BATCH_LINES))]

    def __len__(self) -> int:
        return len(self._q)
