"""The durable local spool: what the agent has recorded but the server has not yet acknowledged.

A spool folder holds segment files of framed records, one record per batch::

    <stream>-<n>.open   being written; the writer holds an exclusive flock on it
    <stream>-<n>.seg    closed, ready to send
    <stream>-<n>.ack    how many bytes of the matching .seg the server has acknowledged

Each record is a 12-byte header (payload length, CRC-32 of the payload, number of events) and the
payload, a JSON batch. Writers flush every record to the OS (it survives the process being killed)
and fsync when a segment closes: group commit, never an fsync per event. A segment left ``.open`` by
a dead writer is recovered by the next reader: its valid records are kept, a torn or corrupt tail is
cut off and counted.
"""

from __future__ import annotations

import fcntl
import os
import struct
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

HEADER = struct.Struct("<III")
MAX_RECORD = 256 << 20  # a length beyond this can only be corruption


@dataclass
class Record:
    offset: int  # where the header starts
    end: int  # where the next record starts
    payload: bytes
    events: int


class SpoolWriter:
    """Appends batches to segment files of one stream, rotating them every ``rotate_seconds``."""

    def __init__(
        self,
        directory: Path,
        stream: str,
        rotate_seconds: float = 0.5,
        rotate_bytes: int = 8 << 20,
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.stream = stream
        self.rotate_seconds = rotate_seconds
        self.rotate_bytes = rotate_bytes
        self._seg_no = 0
        self._path: Path | None = None
        self._fh = None
        self._opened_at = 0.0
        self._size = 0

    def append(self, payload: bytes, events: int) -> None:
        if self._fh is None:
            self._open()
        self._fh.write(HEADER.pack(len(payload), zlib.crc32(payload), events) + payload)
        self._fh.flush()
        self._size += HEADER.size + len(payload)
        if self._size >= self.rotate_bytes or time.monotonic() - self._opened_at >= self.rotate_seconds:
            self.rotate()

    def rotate(self) -> None:
        """Close the open segment (fsync, rename to ``.seg``) so that a sender may take it."""
        fh = self._fh
        if fh is None:
            return
        self._fh = None
        fh.flush()
        os.fsync(fh.fileno())
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
        fh = open(tmp, "ab")  # noqa: SIM115 - kept open across appends
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.replace(tmp, path)
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


@dataclass
class Recovery:
    segments: int = 0
    truncated_bytes: int = 0


class Spool:
    """Reading side of a spool folder: recovery, ordering, acknowledgements and the size limit."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def recover_abandoned(self) -> Recovery:
        """Close segments whose writer died: keep valid records, cut a torn tail."""
        result = Recovery()
        for path in sorted(self.directory.glob("*.open")):
            try:
                fh = open(path, "r+b")  # noqa: SIM115
            except FileNotFoundError:
                continue  # its writer just closed it
            with fh:
                try:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # its writer is alive
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
        paths = []
        for path in self.directory.glob("*.seg"):
            try:
                paths.append((path.stat().st_mtime, path.name, path))
            except FileNotFoundError:
                continue
        return [p for _, _, p in sorted(paths)]

    @staticmethod
    def acked(segment: Path) -> int:
        try:
            return int(segment.with_suffix(".ack").read_text() or 0)
        except (FileNotFoundError, ValueError):
            return 0

    @staticmethod
    def set_acked(segment: Path, offset: int) -> None:
        tmp = segment.with_suffix(".ack.tmp")
        tmp.write_text(str(offset))
        os.replace(tmp, segment.with_suffix(".ack"))

    @staticmethod
    def remove(segment: Path) -> None:
        for suffix in (".seg", ".ack"):
            try:
                segment.with_suffix(suffix).unlink()
            except FileNotFoundError:
                pass

    def pending(self) -> Iterator[tuple[Path, Record]]:
        """Unacknowledged records of the closed segments, in order."""
        for segment in self.ready():
            records, _, _ = read_records(segment, self.acked(segment))
            for record in records:
                yield segment, record

    def size_bytes(self) -> int:
        total = 0
        for path in self.directory.glob("*.seg"):
            try:
                total += path.stat().st_size
            except FileNotFoundError:
                pass
        return total

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
