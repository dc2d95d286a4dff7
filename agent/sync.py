"""`tpuwatch agent sync`: deliver what dead agents or a down server left in the spool."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from agent.sender import Sender
from agent.spool import Spool
from agent.transport import HttpTransport


def run_dirs(base: Path) -> list[Path]:
    if not base.is_dir():
        return []
    return sorted(p for p in base.iterdir() if p.is_dir() and (p / "meta.json").exists())


def sync(base: Path, server: str | None, token: str | None, timeout: float = 60.0, out=sys.stderr) -> int:
    """Deliver every run folder under ``base``; returns the number of folders left undelivered."""
    left = 0
    dirs = run_dirs(base)
    if not dirs:
        print(f"nothing to sync in {base}", file=out)
        return 0
    for directory in dirs:
        meta = json.loads((directory / "meta.json").read_text())
        target = server or meta.get("server")
        if not target:
            print(f"{directory.name}: no server known; pass --server", file=out)
            left += 1
            continue
        spool = Spool(directory)
        sender = Sender(spool, HttpTransport(target, token, timeout=10.0))
        deadline = time.monotonic() + timeout
        drained = False
        while time.monotonic() < deadline:
            if sender.deliver(deadline=deadline):
                drained = True
                break
        sender.transport.close()
        s = sender.stats
        status = "delivered" if drained else "NOT fully delivered (server unreachable?)"
        print(
            f"{meta.get('job')} [{directory.name}]: {status}: {s.sent_batches} batches, "
            f"{s.sent_events} events ({s.duplicates} already stored, {s.rejected_batches} refused)",
            file=out,
        )
        if not drained:
            left += 1
    return left
