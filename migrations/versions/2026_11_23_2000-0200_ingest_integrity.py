"""ingest integrity: batch digests, conflicting redeliveries counted per job, drops per stream

Revision ID: 0200_ingest_integrity
Revises: 0004_merge
Create Date: 2026-11-23 20:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0200_ingest_integrity"
down_revision: str | Sequence[str] | None = "0004_merge"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("ingest_batches") as batch:
        batch.add_column(sa.Column("digest", sa.String(length=64), nullable=True))
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("conflicting_batches", sa.Integer(), server_default="0", nullable=False))
    op.create_table(
        "ingest_drops",
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("stream", sa.String(length=64), nullable=False),
        sa.Column("dropped", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"], ["jobs.id"], name=op.f("fk_ingest_drops_job_id_jobs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("job_id", "stream", name=op.f("pk_ingest_drops")),
    )


def downgrade() -> None:
    op.drop_table("ingest_drops")
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("conflicting_batches")
    with op.batch_alter_table("ingest_batches") as batch:
        batch.drop_column("digest")
