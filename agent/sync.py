"""Delivering what dead agents or a down server left in the spool.

`tpuwatch agent sync` delivers every run folder under the spool directory, with the server and
token it is given. ``LeftoverDelivery`` does the same in the background of the next `tpuwatch agent
run` on the machine, for folders recorded with the same token (a token is a project: another
project's leftovers wait for a sync with theirs). A folder whose agent is alive is left alone: its
agent holds the folder's sender lock. Neither needs free disk space to deliver.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from pathlib import Path

from tpuwatch import log
from tpuwatch.sender import Sender
from tpuwatch.spool import Spool
from tpuwatch.transport import HttpTransport


def run_dirs(base: Path) -> list[Path]:
    """Run folders under ``base``: those with a meta.json, or with segments (a disk too full for
    the meta.json at start still let later batches in)."""
    if not base.is_dir():
        return []

    def is_run(p: Path) -> bool:
        return (p / "meta.json").exists() or any(p.glob("*.seg")) or any(p.glob("*.open"))

    return sorted(p for p in base.iterdir() if p.is_dir() and is_run(p))


def read_meta(directory: Path) -> dict:
    """The folder's meta.json; {} when unreadable (the batches carry their run anyway)."""
    try:
        meta = json.loads((directory / "meta.json").read_text())
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def deliver_dir(directory: Path, server: str, token: str | None, deadline: float, stop=None):
    """Deliver one folder until drained, ``deadline`` or ``stop``; returns (state, sender stats).
    state: "delivered", "undelivered" or "busy" (a live agent sends it)."""
    spool = Spool(directory)
    if not spool.lock():
        return "busy", None
    sender = Sender(spool, HttpTransport(server, token, timeout=10.0))
    drained = False
    try:
        while time.monotonic() < deadline and not (stop is not None and stop.is_set()):
            if sender.deliver(deadline=deadline):
                drained = True
                break
    finally:
        sender.transport.close()
        spool.unlock()
    return ("delivered" if drained else "undelivered"), sender.stats


def sync(base: Path, server: str | None, token: str | None, timeout: float = 60.0, out=sys.stderr) -> int:
    """Deliver every run folder under ``base``; returns the number of folders left undelivered."""
    left = 0
    dirs = run_dirs(base)
    if not dirs:
        print(f"nothing to sync in {base}", file=out)
        return 0
    for directory in dirs:
        meta = read_meta(directory)
        target = server or meta.get("server")
        name = f"{meta.get('job', '?')} [{directory.name}]"
        if not target:
            print(f"{directory.name}: no server known; pass --server", file=out)
            left += 1
            continue
        state, s = deliver_dir(directory, target, token, time.monotonic() + timeout)
        if state == "busy":
            print(f"{name}: skipped, a running agent is sending it", file=out)
            continue
        status = "delivered" if state == "delivered" else "NOT fully delivered (server unreachable?)"
        print(
            f"{name}: {status}: {s.sent_batches} batches, "
            f"{s.sent_events} events ({s.duplicates} already stored, {s.rejected_batches} refused)",
            file=out,
        )
        if state != "delivered":
            left += 1
    return left


def token_fingerprint(token: str | None) -> str | None:
    return hashlib.sha256(token.encode()).hexdigest()[:16] if token else None


class LeftoverDelivery(threading.Thread):
    """Delivers, in the background, what earlier runs recorded with this token under ``base``."""

    def __init__(self, base: Path, own: Path, server: str, token: str | None, budget: float = 3600.0):
        super().__init__(name="tpuwatch-leftovers", daemon=True)
        self.base, self.own, self.server, self.token = Path(base), Path(own), server, token
        self.budget = budget
        self._halt = threading.Event()

    def start(self) -> LeftoverDelivery:
        super().start()
        return self

    def stop(self, timeout: float) -> None:
        self._halt.set()
        self.join(timeout)

    def run(self) -> None:
        mine = token_fingerprint(self.token)
        deadline = time.monotonic() + self.budget
        for directory in run_dirs(self.base):
            if self._halt.is_set():
                return
            if directory == self.own or mine is None or read_meta(directory).get("token_sha256") != mine:
                continue
            if not Spool(directory).backlog().records:
                continue
            try:
                state, stats = deliver_dir(directory, self.server, self.token, deadline, self._halt)
            except Exception as exc:  # one bad folder must not stop the others, nor the run
                log.warn_once(
                    f"leftover-{directory}", f"leftovers in {directory}: {type(exc).__name__}: {exc}"
                )
                continue
            if state == "delivered" and stats.sent_batches:
                log.warn(
                    f"delivered what an earlier run left in {directory}: {stats.sent_batches} batches, "
                    f"{stats.sent_events} events"
                )
