"""What the agent does when its spool disk fills up.

Training never notices: the hot path only appends to memory, and the writer thread counts a batch
it cannot write as dropped (the count travels in the next batch that fits, and the server adds it
up per stream). The last batch of a process matters most (the exit code, the final dropped count),
so each writer sets a few KiB aside while there is room (``Reserve``) and, for that batch only,
gives the reserve back and then the oldest closed segments (``make_room``) until it fits.
``leftover_lines`` says at exit, in words, what was lost and what still waits to be sent.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tpuwatch.spool import Spool
from tpuwatch.transport import HttpTransport, TransportError

RESERVE_BYTES = 8192


class Reserve:
    """A small file of zeros in the spool folder, kept while the disk has room."""

    def __init__(self, directory: Path, stream: str) -> None:
        self.path: Path | None = Path(directory) / f"reserve-{stream}"
        try:
            with open(self.path, "wb") as fh:
                fh.write(b"\0" * RESERVE_BYTES)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError:
            self.drop()  # no room even for that: the disk is full from the start

    def release(self) -> bool:
        """Give the space back; True when there was some to give."""
        if self.path is None:
            return False
        self.drop()
        return True

    def drop(self) -> None:
        if self.path is not None:
            try:
                self.path.unlink()
            except OSError:
                pass
            self.path = None


def make_room(reserve: Reserve, spool: Spool) -> int | None:
    """Free space for one more batch: the reserve first, then the oldest closed segment. Returns the
    events given up (0 for the reserve); None when there is nothing left to free."""
    if reserve.release():
        return 0
    return spool.evict_oldest()


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


def leftover_lines(directory: Path, spool: Spool | None, server: str | None, unspooled: int) -> list[str]:
    """What to tell the person at exit: events the disk could not take, batches not yet sent."""
    lines = []
    if unspooled:
        lines.append(
            f"{unspooled} events could not be spooled (the disk holding {directory} was full) and are "
            "lost; the server counts them as dropped"
        )
    if spool is not None:
        left = spool.backlog()
        if left.records:
            lines.append(
                f"{left.records} batches ({left.events} events, {_size(left.bytes)}) are not delivered yet "
                f"to {server}: they stay in {directory}; the next `tpuwatch agent run` on this machine "
                "delivers them, or run `tpuwatch agent sync` now"
            )
    return lines


def send_directly(server: str, token: str | None, batch: dict) -> bool:
    """Send a batch no disk could take straight to the server; True when it was stored."""
    transport = HttpTransport(server, token, timeout=5.0)
    try:
        return transport.send(json.dumps(batch, separators=(",", ":"), default=str).encode()).ok
    except TransportError:
        return False
    finally:
        transport.close()
