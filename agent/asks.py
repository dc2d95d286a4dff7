"""What the server asked of this agent, heard in the answers to its batches.

The server cannot call an agent (agents sit behind NAT on TPU VMs); it asks in the
``X-Tpuwatch-Ask`` header of its ingest answers instead (``core_state=17``), for as long as the
ask is fresh, and every host hears it with its next batch. The sender thread records what it
heard (``hear``, no I/O); the source that can do it takes each new id once (``take``).

>>> asks = Asks()
>>> asks.hear("core_state=17")
>>> asks.take("core_state"), asks.take("core_state")
('17', None)
>>> asks.hear("core_state=17, other=2"); asks.take("core_state")  # the same ask again: done already
>>> asks.hear("core_state=18"); asks.take("core_state")
'18'
"""

from __future__ import annotations

import threading

MAX_ASKS = 8  # names kept from one header: a garbled header costs nothing
MAX_ID_CHARS = 32


class Asks:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._heard: dict[str, str] = {}  # name -> the latest id heard
        self._done: dict[str, str] = {}  # name -> the latest id taken
        self.wake = threading.Event()  # set when a new ask arrives (a source may wait on it)

    def hear(self, header: str | None) -> None:
        """Record the asks of one answer's header; never raises."""
        if not header:
            return
        new = False
        with self._lock:
            for part in header.split(",")[:MAX_ASKS]:
                name, sep, ask_id = part.strip().partition("=")
                if not sep or not name or not ask_id or len(ask_id) > MAX_ID_CHARS:
                    continue
                if self._heard.get(name) != ask_id and self._done.get(name) != ask_id:
                    self._heard[name] = ask_id
                    new = True
        if new:
            self.wake.set()

    def take(self, name: str) -> str | None:
        """The id of a new ask for ``name`` (once), or None."""
        with self._lock:
            ask_id = self._heard.get(name)
            if ask_id is None or self._done.get(name) == ask_id:
                return None
            self._done[name] = ask_id
            return ask_id
