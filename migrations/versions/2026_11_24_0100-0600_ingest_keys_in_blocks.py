"""ingest keys: 64 batches of a stream to a row (a bitmap and 4-byte digest prefixes), split parts
a row each; ingest_batches (a row per batch, ~250 bytes with its indexes) goes

Revision ID: 0600_ingest_keys
Revises: 0500_metric_steps
Create Date: 2026-11-24 01:00:00

The stored keys move over: each stream's batches set their bits and digest slots (app/ingest/keys.py).
Downgrade cannot name the streams again (a row keeps 8 bytes of a hash of the name), so it leaves
ingest_batches empty: batches stored before the downgrade would be stored again if redelivered.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0600_ingest_keys"
down_revision: str | Sequence[str] | None = "0500_metric_steps"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["job_id"], ["jobs.id"], name=op.f(f"fk_{table}_job_id_jobs"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "ingest_keys",
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("stream_key", sa.BigInteger(), nullable=False),
        sa.Column("block", sa.BigInteger(), nullable=False),
        sa.Column("seen", sa.BigInteger(), nullable=False),
        sa.Column("first_at", sa.Float(), nullable=False),
        sa.Column("last_at", sa.Float(), nullable=False),
        sa.Column("digests", sa.LargeBinary(), nullable=False),
        _fk("ingest_keys"),
        sa.PrimaryKeyConstraint("job_id", "stream_key", "block", name=op.f("pk_ingest_keys")),
    )
    op.create_index("ix_ingest_keys_first_at", "ingest_keys", ["first_at"], postgresql_using="brin")
    op.create_table(
        "ingest_parts",
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("stream_key", sa.BigInteger(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("part", sa.String(length=32), nullable=False),
        sa.Column("received_at", sa.Float(), nullable=False),
        sa.Column("digest", sa.LargeBinary(), nullable=False),
        _fk("ingest_parts"),
        sa.PrimaryKeyConstraint("job_id", "stream_key", "seq", "part", name=op.f("pk_ingest_parts")),
    )
    op.create_index("ix_ingest_parts_received_at", "ingest_parts", ["received_at"])
    _move_keys()
    with op.batch_alter_table("ingest_batches") as batch:
        batch.drop_index("ix_ingest_batches_job_id")
    op.drop_table("ingest_batches")


def _move_keys(chunk: int = 20_000) -> None:
    """Fold the stored keys into rows of 64, as ingest writes them (app/ingest/keys.py), reading
    them in (job, stream, seq) order so that a row is finished before the next begins: in bulk, a
    server with weeks of pod batches (tens of millions of keys) upgrades in minutes."""
    from tpuwatch.server.ingest import keys

    conn = op.get_bind()
    rows = conn.execute(
        sa.text(
            "SELECT job_id, stream, seq, part, digest, received_at FROM ingest_batches "
            "ORDER BY job_id, stream, seq, part"
        ).execution_options(stream_results=True, yield_per=chunk)
    )
    width = keys.BLOCK * keys.DIGEST_BYTES
    out: list[dict] = []
    parts: list[dict] = []
    cur: dict | None = None
    for job_id, stream, seq, part, digest, received_at in rows:
        sk = keys.stream_key(stream)
        d = bytes.fromhex(digest)[: keys.DIGEST_BYTES] if digest else bytes(keys.DIGEST_BYTES)
        if part:
            parts.append(
                dict(job_id=job_id, stream_key=sk, seq=seq, part=part, received_at=received_at, digest=d)
            )
            continue
        block = seq // keys.BLOCK
        if cur is None or (cur["job_id"], cur["stream_key"], cur["block"]) != (job_id, sk, block):
            cur = dict(job_id=job_id, stream_key=sk, block=block, seen=0)
            cur.update(first_at=received_at, last_at=received_at, digests=bytearray(width))
            out.append(cur)
        cur["seen"] |= keys.bit(seq)
        cur["first_at"] = min(cur["first_at"], received_at)
        cur["last_at"] = max(cur["last_at"], received_at)
        slot = (seq % keys.BLOCK) * keys.DIGEST_BYTES
        cur["digests"][slot : slot + keys.DIGEST_BYTES] = d
        if len(out) > chunk:
            _insert(conn, out[:-1], parts)
            out, parts = out[-1:], []
    _insert(conn, out, parts)


def _insert(conn, blocks: list[dict], parts: list[dict]) -> None:
    meta = sa.MetaData()
    if blocks:
        table = sa.Table("ingest_keys", meta, autoload_with=conn)
        conn.execute(table.insert(), [dict(b, digests=bytes(b["digests"])) for b in blocks])
    if parts:
        conn.execute(sa.Table("ingest_parts", meta, autoload_with=conn).insert(), parts)


def downgrade() -> None:
    op.create_table(
        "ingest_batches",
        sa.Column("stream", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("part", sa.String(length=32), nullable=False),
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("received_at", sa.Float(), nullable=False),
        sa.Column("events", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=True),
        _fk("ingest_batches"),
        sa.PrimaryKeyConstraint("stream", "seq", "part", name=op.f("pk_ingest_batches")),
    )
    with op.batch_alter_table("ingest_batches") as batch:
        batch.create_index("ix_ingest_batches_job_id", ["job_id"], unique=False)
    op.drop_index("ix_ingest_parts_received_at", table_name="ingest_parts")
    op.drop_table("ingest_parts")
    op.drop_index("ix_ingest_keys_first_at", table_name="ingest_keys")
    op.drop_table("ingest_keys")
