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


def _move_keys() -> None:
    """Claim every stored key again, oldest first, through the code that ingest uses."""
    from sqlalchemy.orm import Session

    from tpuwatch.server.ingest import keys

    conn = op.get_bind()
    session = Session(bind=conn)
    rows = conn.execute(
        sa.text(
            "SELECT job_id, stream, seq, part, digest, received_at FROM ingest_batches "
            "ORDER BY received_at, stream, seq"
        )
    )
    for job_id, stream, seq, part, digest, received_at in rows.fetchall():
        keys.claim(session, job_id, stream, seq, part, digest, received_at)
    session.flush()


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
