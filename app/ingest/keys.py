"""The keys of stored batches: what makes redelivery harmless, in a few bytes a batch.

Every host of a pod sends a batch a second (the agent's pace), 88 million batches a day for 1,024
hosts: a row per batch (some 100 bytes with its index even when narrow) would outweigh the steps it
guards. A stream's sequence numbers are dense, so keys go 64 to a row of ``ingest_keys``
(``(job, stream, seq // 64)``): a bitmap of the batches stored and, at each one's slot, the first
``DIGEST_BYTES`` of its SHA-256. Claiming a key is one upsert that sets the bit only where it was
clear; a batch whose bit was set already is a redelivery, or a conflict when its digest differs.

The digest only tells a redelivery (the same bytes) from a different batch reusing a stored key,
a bug of the sender: the first copy is kept either way, and the conflict is counted and logged.
Four bytes miss a conflict once in 4 billion (it is then counted as a plain duplicate); a digest of
zeros means none was given. Parts of a split batch (``part`` not empty, rare) keep a row each in
``ingest_parts``.

Retention: a key older than the ingest window (``ingest_max_age_days`` plus the clock skew allowed
ahead) guards nothing, since a batch with data that old is refused before its key is looked at;
``prune`` deletes those keys in bounded rounds.
"""

from __future__ import annotations

import hashlib
import time

from sqlalchemy import delete, func, select, tuple_
from sqlalchemy.orm import Session, sessionmaker

from tpuwatch.server.db import insert_ignore, transaction
from tpuwatch.server.models import IngestKey, IngestPart

BLOCK = 64  # batches to a row: the bits of a BIGINT
DIGEST_BYTES = 4
_NONE = bytes(DIGEST_BYTES)
PRUNE_ROUND = 50_000  # key rows a pruning transaction deletes at most
_ALL = (1 << 64) - 1  # a signed BIGINT's 64 bits as Python sees them

# Sets the batch's bit and its digest slot only when the bit was clear: no row back means the key
# was stored before. The slot is rewritten with substr/|| (PostgreSQL bytea, SQLite blob alike).
_CLAIM = (
    "INSERT INTO ingest_keys (job_id, stream_key, block, seen, first_at, last_at, digests) "
    "VALUES ({m}, {m}, {m}, {m}, {m}, {m}, {m}) "
    "ON CONFLICT (job_id, stream_key, block) DO UPDATE SET "
    "seen = ingest_keys.seen | excluded.seen, last_at = excluded.last_at, "
    "digests = {cast_open}substr(ingest_keys.digests, 1, {m}) || {m} || "
    "substr(ingest_keys.digests, {m}){cast_close} "
    "WHERE ingest_keys.seen & excluded.seen = 0 RETURNING 1"
)
_SQL = {
    "postgresql": _CLAIM.format(m="%s", cast_open="", cast_close=""),
    # SQLite's || makes text of blobs; CAST takes the very bytes back.
    "sqlite": _CLAIM.format(m="?", cast_open="CAST(", cast_close=" AS BLOB)"),
}

# PostgreSQL: every key row of a group in one statement (a row per (job, stream, block), its new
# batches' bits merged), instead of a statement per batch: a paced host's request carries a batch
# for each second since its last, and a statement each was the writer's largest cost per batch.
# A row is updated only when none of its bits was set, so a returned row means every one of its
# batches is new; a row not returned (some batch stored before: a redelivery) is locked by then
# and its batches are claimed one by one with _CLAIM, as before. Each slot of the digests comes
# from the new row where its bit is new, else from the stored row. unnest keeps the rows in the
# order given (key order), so concurrent groups lock rows in the same order.
_SLOTS = " || ".join(
    f"CASE WHEN excluded.seen & ({-(1 << 63) if k == 63 else 1 << k})::bigint = 0 "
    f"THEN substr(ingest_keys.digests, {k * DIGEST_BYTES + 1}, {DIGEST_BYTES}) "
    f"ELSE substr(excluded.digests, {k * DIGEST_BYTES + 1}, {DIGEST_BYTES}) END"
    for k in range(BLOCK)
)
_CLAIM_ROWS = (
    "INSERT INTO ingest_keys (job_id, stream_key, block, seen, first_at, last_at, digests) "
    "SELECT * FROM unnest(%s::integer[], %s::bigint[], %s::bigint[], %s::bigint[], "
    "%s::float8[], %s::float8[], %s::bytea[]) "
    "ON CONFLICT (job_id, stream_key, block) DO UPDATE SET "
    "seen = ingest_keys.seen | excluded.seen, last_at = excluded.last_at, "
    f"digests = {_SLOTS} "
    "WHERE ingest_keys.seen & excluded.seen = 0 RETURNING job_id, stream_key, block"
)


def stream_key(stream: str) -> int:
    """A stream's name as a signed 64-bit integer (8 bytes of BLAKE2b).

    >>> stream_key("a") == stream_key("a") != stream_key("b")
    True
    """
    return int.from_bytes(hashlib.blake2b(stream.encode(), digest_size=8).digest(), "big", signed=True)


def bit(seq: int) -> int:
    """The bit of ``seq`` in its row's ``seen`` as a signed 64-bit value.

    >>> bit(0), bit(65), bit(63)
    (1, 2, -9223372036854775808)
    """
    k = seq % BLOCK
    return -(1 << 63) if k == 63 else 1 << k


def _prefix(digest: str | None) -> bytes:
    return bytes.fromhex(digest)[:DIGEST_BYTES] if digest else _NONE


def claim(
    session: Session, job_id: int, stream: str, seq: int, part: str, digest: str | None, now: float
) -> bool:
    """Record batch ``(stream, seq, part)`` of the job as stored; False when it was already."""
    return claim_many(session, [(job_id, stream, seq, part, digest)], now)[0]


def claim_many(
    session: Session, batches: list[tuple[int, str, int, str, str | None]], now: float
) -> list[bool]:
    """``claim`` for many ``(job id, stream, seq, part, digest)``, in order: a key that comes twice
    is claimed by its first. On PostgreSQL the claims go in one pipelined round trip."""
    fresh = [False] * len(batches)
    whole: list[tuple[int, tuple]] = []
    for i, (job_id, stream, seq, part, digest) in enumerate(batches):
        key = stream_key(stream)
        if part:
            values = dict(
                job_id=job_id, stream_key=key, seq=seq, part=part, received_at=now, digest=_prefix(digest)
            )
            cols = ["job_id", "stream_key", "seq", "part"]
            fresh[i] = bool(insert_ignore(session, IngestPart.__table__, values, cols))
            continue
        slot = (seq % BLOCK) * DIGEST_BYTES
        d = _prefix(digest)
        row = bytes(slot) + d + bytes((BLOCK - 1) * DIGEST_BYTES - slot)
        whole.append(
            (i, (job_id, key, seq // BLOCK, bit(seq), now, now, row, slot, d, slot + DIGEST_BYTES + 1))
        )
    # In key order (stable: a key twice goes to its first), so that concurrent groups lock key
    # rows in the same order.
    whole.sort(key=lambda w: w[1][:3])
    conn = session.connection()
    sql = _SQL[conn.dialect.name]
    if conn.dialect.name == "postgresql" and len(whole) > 1:
        with conn.connection.dbapi_connection.cursor() as cur:
            rest = _claim_rows(cur, whole, fresh)
            if rest:
                cur.executemany(sql, [params for _, params in rest], returning=True)
                for n, (i, _) in enumerate(rest):
                    if n:
                        cur.nextset()
                    fresh[i] = cur.fetchone() is not None
        return fresh
    for i, params in whole:
        fresh[i] = conn.exec_driver_sql(sql, params).first() is not None
    return fresh


def _claim_rows(cur, whole: list[tuple[int, tuple]], fresh: list[bool]) -> list[tuple[int, tuple]]:
    """Claim ``whole`` (in key order) a key row at a time in one statement (_CLAIM_ROWS); sets
    ``fresh`` for the batches of the rows claimed and returns the rest, for _CLAIM one by one:
    those of rows where some batch was stored before, and any key that comes twice."""
    rows: dict[tuple, list] = {}  # (job, stream key, block) -> [seen, digests, batches]
    rest: list[tuple[int, tuple]] = []
    for i, params in whole:
        job_id, key, block, seen, _, _, _, slot, d, _ = params
        row = rows.get((job_id, key, block))
        if row is None:
            rows[(job_id, key, block)] = [seen, bytearray(params[6]), [(i, params)]]
        elif row[0] & seen:  # the same key again: its first claims it
            rest.append((i, params))
        else:
            row[0] |= seen
            row[1][slot : slot + DIGEST_BYTES] = d
            row[2].append((i, params))
    now = whole[0][1][4]
    cols: list[list] = [[], [], [], [], [], [], []]
    for (job_id, key, block), (seen, digests, _) in rows.items():
        for col, value in zip(cols, (job_id, key, block, seen, now, now, bytes(digests)), strict=True):
            col.append(value)
    cur.execute(_CLAIM_ROWS, cols)
    claimed = {tuple(r) for r in cur.fetchall()}
    for row_key, (_, _, batches) in rows.items():
        if row_key in claimed:
            for i, _ in batches:
                fresh[i] = True
        else:
            rest.extend(batches)
    rest.sort(key=lambda w: (w[1][:3], w[0]))  # a key twice: its first claims it, as in ``whole``
    return rest


def stored_digest(session: Session, job_id: int, stream: str, seq: int, part: str) -> str | None:
    """The hex digest prefix stored with a batch's key; None when none was given (or no key)."""
    key = stream_key(stream)
    if part:
        found = session.scalar(
            select(IngestPart.digest).where(
                IngestPart.job_id == job_id,
                IngestPart.stream_key == key,
                IngestPart.seq == seq,
                IngestPart.part == part,
            )
        )
    else:
        row = session.scalar(
            select(IngestKey.digests).where(
                IngestKey.job_id == job_id, IngestKey.stream_key == key, IngestKey.block == seq // BLOCK
            )
        )
        slot = (seq % BLOCK) * DIGEST_BYTES
        found = None if row is None else bytes(row[slot : slot + DIGEST_BYTES])
    return None if not found or found == _NONE else bytes(found).hex()


def same_content(digest: str, stored: str) -> bool:
    """True when ``digest`` (a full hex SHA-256) starts with the stored prefix."""
    return digest.startswith(stored)


def stored_seqs(session: Session, job_id: int, stream: str) -> list[int]:
    """The sequence numbers of whole batches of ``stream`` that are stored, ascending."""
    rows = session.execute(
        select(IngestKey.block, IngestKey.seen)
        .where(IngestKey.job_id == job_id, IngestKey.stream_key == stream_key(stream))
        .order_by(IngestKey.block)
    ).all()
    return [b * BLOCK + k for b, seen in rows for k in range(BLOCK) if seen & bit(k)]


def stored_count(session: Session) -> int:
    """How many batches (whole or parts) have a key."""
    bits = sum((seen & _ALL).bit_count() for seen in session.scalars(select(IngestKey.seen)))
    return bits + (session.scalar(select(func.count()).select_from(IngestPart)) or 0)


def prune(session: Session, cutoff: float, limit: int = PRUNE_ROUND) -> int:
    """Delete up to ``limit`` key rows (and as many part keys) whose every batch came before
    ``cutoff``; returns the rows deleted. Call again while it returns ``limit`` or more."""
    k, p = IngestKey, IngestPart
    old = select(k.job_id, k.stream_key, k.block).where(k.first_at < cutoff, k.last_at < cutoff)
    done = session.execute(delete(k).where(tuple_(k.job_id, k.stream_key, k.block).in_(old.limit(limit))))
    parts = select(p.job_id, p.stream_key, p.seq, p.part).where(p.received_at < cutoff).limit(limit)
    gone = session.execute(delete(p).where(tuple_(p.job_id, p.stream_key, p.seq, p.part).in_(parts)))
    return (done.rowcount or 0) + (gone.rowcount or 0)


def window_cutoff(max_age_days: float, max_ahead_s: float, now: float) -> float:
    """Keys of batches received before this guard nothing: a batch is refused when any of its
    times lies more than ``max_age_days`` before now, and none lay more than ``max_ahead_s`` after
    the moment it first came. (A batch with no time in it at all stores nothing but a heartbeat.)

    >>> window_cutoff(1.0, 60.0, 100_000.0)
    13540.0
    """
    return now - max_age_days * 86400.0 - max_ahead_s


def prune_past_window(
    sessions: sessionmaker, max_age_days: float, max_ahead_s: float, budget_s: float = 5.0
) -> int:
    """Prune keys past the ingest window in rounds of a transaction each, for about ``budget_s``
    at most (the alert loop's leader calls this hourly); returns the rows deleted."""
    cutoff = window_cutoff(max_age_days, max_ahead_s, time.time())
    total, started = 0, time.monotonic()
    while True:
        with transaction(sessions) as session:
            n = prune(session, cutoff, PRUNE_ROUND)
        total += n
        if n < PRUNE_ROUND or time.monotonic() - started > budget_s:
            return total
