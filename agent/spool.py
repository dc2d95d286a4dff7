"""The durable local spool: what the agent has recorded but the server has not yet acknowledged.

A spool folder holds segment files of framed records, one record per batch::

    <stream>-<n>.open   being written; the writer holds an exclusive flock on it
    <stream>-<n>.seg    closed, ready to send
    <stream>-<n>.ack    how many bytes of the matching .seg the server has acknowledged

Each record is a 12-byte header (payload length, CRC-32 of the payload, number of events) and the
payload, a JSON batch. Writers hand every record to the OS (it survives the process being killed)
and fsync when a segment closes: group commit, never an fsync per event. A segment left ``.open`` by
a dead writer is recovered by the next reader: its valid records are kept, a torn or corrupt tail is
cut off and counted.

A full disk is an ordinary condition here, not a crash: a record that does not fit is cut back off
the segment at once (no torn record is left for later ones to hide behind) and the writer's caller
decides what to drop; acknowledgements that cannot be written are kept in memory; ``backlog()``
says what is left to send and ``evict_oldest()`` makes room for what matters more (a job's exit).
"""

from __future__ import annotations

import errno
import fcntl
import math
import os
import struct
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

HEADER = struct.Struct("<III")
MAX_RECORD = 256 << 20  # a length beyond this can only be corruption
# What a full disk looks like to a write: no space, no quota left, a file size limit.
DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
LOCK_NAME = ".sender.lock"


def disk_full(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in DISK_FULL


@dataclass
class Record:
    offset: int  # where the header starts
    end: int  # where the next record starts
    payload: bytes
    events: int


ROTATE_SECONDS = 0.5  # a segment's age at which it closes, unless a pace closes it (``None``)


class SpoolWriter:
    """Appends batches to segment files of one stream, rotating them every ``rotate_seconds``
    (never by age when it is ``None``: the caller closes them)."""

    def __init__(
        self,
        directory: Path,
        stream: str,
        rotate_seconds: float | None = ROTATE_SECONDS,
        rotate_bytes: int = 8 << 20,
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.stream = stream
        self.rotate_seconds = math.inf if rotate_seconds is None else rotate_seconds
        self.rotate_bytes = rotate_bytes
        self._seg_no = 0
        self._path: Path | None = None
        self._fh = None
        self._opened_at = 0.0
        self._size = 0

    def append(self, payload: bytes, events: int) -> None:
        """Write one record. On an error (a full disk) the record is cut back off and the error
        raised: the segment keeps only whole records, and the caller decides what is dropped."""
        if self._fh is None:
            self._open()
        record = HEADER.pack(len(payload), zlib.crc32(payload), events) + payload
        fd = self._fh.fileno()
        try:
            view = memoryview(record)
            while view:
                view = view[os.write(fd, view) :]
        except OSError:
            self._cut_back()
            raise
        self._size += len(record)
        if self._size >= self.rotate_bytes or time.monotonic() - self._opened_at >= self.rotate_seconds:
            self.rotate()

    def _cut_back(self) -> None:
        """Undo a partly written record; an empty segment goes (its file costs a block)."""
        try:
            os.ftruncate(self._fh.fileno(), self._size)
        except OSError:
            pass
        if self._size == 0:
            fh, path, self._fh = self._fh, self._path, None
            try:
                path.unlink()
            except OSError:
                pass
            fh.close()

    def rotate(self) -> None:
        """Close the open segment (fsync, rename to ``.seg``) so that a sender may take it."""
        fh = self._fh
        if fh is None:
            return
        self._fh = None
        try:
            os.fsync(fh.fileno())
        except OSError:
            pass  # the OS has every record; only their durability across a power cut is in doubt
        path = self._path
        os.replace(path, path.with_suffix(".seg"))
        fh.close()  # releases the flock
        self._seg_no += 1

    close = rotate

    def rotate_if_due(self) -> None:
        """Close the open segment once it is ``rotate_seconds`` old, even if nothing new came."""
        if self._fh is not None and time.monotonic() - self._opened_at >= self.rotate_seconds:
            self.rotate()

    def _open(self) -> None:
        while True:
            path = self.directory / f"{self.stream}-{self._seg_no:08d}.open"
            if not path.exists() and not path.with_suffix(".seg").exists():
                break
            self._seg_no += 1
        # Lock first, then take the name readers look for: a reader must never find a live
        # writer's .open segment unlocked and recover it as a dead writer's (the writer would go
        # on appending to a file the sender had already taken and removed).
        tmp = path.with_suffix(".new")
        fh = open(tmp, "ab", buffering=0)  # noqa: SIM115 - kept open across appends; unbuffered:
        # an error shows at the write it belongs to, never later at a flush or a close
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.replace(tmp, path)
        except OSError:
            fh.close()
            tmp.unlink(missing_ok=True)
            raise
        self._path = path
        self._fh = fh
        self._opened_at = time.monotonic()
        self._size = 0


def read_records(path: Path, start: int = 0) -> tuple[list[Record], int, int]:
    """Valid records from ``start``; also the end of the last valid one and the file size."""
    with open(path, "rb") as fh:
        fh.seek(start)
        data = fh.read()
    records = []
    pos = 0
    while pos + HEADER.size <= len(data):
        length, crc, events = HEADER.unpack_from(data, pos)
        end = pos + HEADER.size + length
        if length > MAX_RECORD or end > len(data):
            break
        payload = data[pos + HEADER.size : end]
        if zlib.crc32(payload) != crc:
            break
        records.append(Record(start + pos, start + end, payload, events))
        pos = end
    return records, start + pos, start + len(data)


def runs(records: list[Record], max_events: int, max_bytes: int) -> Iterator[list[Record]]:
    """``records`` in runs of consecutive records, each at most ``max_events`` events and
    ``max_bytes`` of payload (a record larger than that is a run of its own): what one request
    carries. The host emulator (bench/emulator.py) cuts its in-memory segments the same way.

    >>> rs = [Record(0, 0, b"x" * 10, 4) for _ in range(5)]
    >>> [len(r) for r in runs(rs, max_events=8, max_bytes=100)]
    [2, 2, 1]
    """
    run: list[Record] = []
    events = size = 0
    for record in records:
        if run and (events + record.events > max_events or size + len(record.payload) > max_bytes):
            yield run
            run, events, size = [], 0, 0
        run.append(record)
        events += record.events
        size += len(record.payload)
    if run:
        yield run


@dataclass
class Recovery:
    segments: int = 0
    truncated_bytes: int = 0


@dataclass
class Backlog:
    segments: int = 0
    records: int = 0
    events: int = 0
    bytes: int = 0


class Spool:
    """Reading side of a spool folder: recovery, ordering, acknowledgements and the size limit."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._acked: dict[str, int] = {}  # what could not be written to .ack files (a full disk)
        self._lock = None

    def _entries(self, suffix: str) -> list[os.DirEntry]:
        """The folder's files ending in ``suffix``: one ``scandir``, no Path per name (a sender
        looks several times a round; pathlib's glob cost a pod of agents on one VM a core)."""
        try:
            with os.scandir(self.directory) as it:
                return [e for e in it if e.name.endswith(suffix)]
        except FileNotFoundError:
            return []

    def _stats(self, suffix: str) -> list[tuple[os.DirEntry, os.stat_result]]:
        found = []
        for entry in self._entries(suffix):
            try:
                found.append((entry, entry.stat()))
            except FileNotFoundError:
                continue  # taken meanwhile
        return found

    def recover_abandoned(self) -> Recovery:
        """Close segments whose writer died: keep valid records, cut a torn tail."""
        result = Recovery()
        for path in sorted(Path(e.path) for e in self._entries(".open")):
            try:
                fh = open(path, "r+b")  # noqa: SIM115
            except FileNotFoundError:
                continue  # its writer just closed it
            with fh:
                try:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # its writer is alive
                try:
                    if os.stat(path).st_ino != os.fstat(fh.fileno()).st_ino:
                        continue
                except FileNotFoundError:
                    # Its writer closed it between our open and our lock: it is a .seg now, whole.
                    continue
                _, valid_end, size = read_records(path)
                if size > valid_end:
                    fh.truncate(valid_end)
                    result.truncated_bytes += size - valid_end
                os.fsync(fh.fileno())
                os.replace(path, path.with_suffix(".seg"))
                result.segments += 1
        return result

    def ready(self) -> list[Path]:
        """Closed segments, oldest first."""
        found = sorted((st.st_mtime, e.name, e.path) for e, st in self._stats(".seg"))
        return [Path(path) for _, _, path in found]

    def acked(self, segment: Path) -> int:
        try:
            on_disk = int(segment.with_suffix(".ack").read_text() or 0)
        except (FileNotFoundError, ValueError):
            on_disk = 0
        return max(on_disk, self._acked.get(segment.name, 0))

    def set_acked(self, segment: Path, offset: int) -> None:
        """Remember what the server has; on a full disk in memory only (a restart then sends the
        rest of the segment again, which the server stores once)."""
        self._acked[segment.name] = offset
        tmp = segment.with_suffix(".ack.tmp")
        try:
            tmp.write_text(str(offset))
            os.replace(tmp, segment.with_suffix(".ack"))
        except OSError:
            tmp.unlink(missing_ok=True)

    def remove(self, segment: Path) -> None:
        self._acked.pop(segment.name, None)
        for suffix in (".seg", ".ack"):
            try:
                segment.with_suffix(suffix).unlink()
            except FileNotFoundError:
                pass

    def lock(self) -> bool:
        """Become the one sender of this folder (a live agent's, or sync's); False when another
        live process is. The lock goes with the process: a killed agent leaves it free."""
        if self._lock is not None:
            return True
        try:
            fh = open(self.directory / LOCK_NAME, "a")  # noqa: SIM115 - held until unlock()
        except OSError:
            return True  # cannot even create the lock file (a full disk): send anyway, the server dedups
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            return False
        self._lock = fh
        return True

    def unlock(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def backlog(self) -> Backlog:
        """What the closed segments hold that the server has not acknowledged (headers only)."""
        out = Backlog()
        for segment in self.ready():
            try:
                with open(segment, "rb") as fh:
                    pos = self.acked(segment)
                    size = os.fstat(fh.fileno()).st_size
                    records = 0
                    while pos + HEADER.size <= size:
                        fh.seek(pos)
                        length, _, events = HEADER.unpack(fh.read(HEADER.size))
                        if length > MAX_RECORD or pos + HEADER.size + length > size:
                            break
                        records += 1
                        out.events += events
                        out.bytes += HEADER.size + length
                        pos += HEADER.size + length
            except FileNotFoundError:
                continue
            if records:
                out.segments += 1
                out.records += records
        return out

    def evict_oldest(self) -> int | None:
        """Remove the oldest closed segment to make room; the events it held unsent (None when
        there is no closed segment to remove)."""
        for segment in self.ready():
            try:
                records, _, _ = read_records(segment, self.acked(segment))
            except FileNotFoundError:
                continue
            self.remove(segment)
            return sum(r.events for r in records)
        return None

    def pending(self) -> Iterator[tuple[Path, Record]]:
        """Unacknowledged records of the closed segments, in order."""
        for segment in self.ready():
            records, _, _ = read_records(segment, self.acked(segment))
            for record in records:
                yield segment, record

    def pending_groups(self, max_events: int, max_bytes: int) -> Iterator[tuple[Path, list[Record]]]:
        """Unacknowledged records of the closed segments in runs of consecutive records of one
        segment, each run at most ``max_events`` events and ``max_bytes`` of payload (a record
        larger than that is a run of its own). The runs depend only on the segment, which no
        longer changes, and on what is acknowledged: a run sent again after a lost answer is the
        same run, so the server can tell it is a copy."""
        for segment in self.ready():
            records, _, _ = read_records(segment, self.acked(segment))
            for run in runs(records, max_events, max_bytes):
                yield segment, run

    def size_bytes(self) -> int:
        return sum(st.st_size for _, st in self._stats(".seg"))

    def enforce_limit(self, max_bytes: int) -> int:
        """Drop the oldest closed segments until the spool fits; return the events dropped."""
        dropped = 0
        total = self.size_bytes()
        for segment in self.ready():
            if total <= max_bytes:
                break
            try:
                size = segment.stat().st_size
                records, _, _ = read_records(segment, self.acked(segment))
            except FileNotFoundError:
                continue
            dropped += sum(r.events for r in records)
            self.remove(segment)
            total -= size
        return dropped
