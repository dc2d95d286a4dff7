"""step rollups: per-host step-time summaries at four bucket widths

Revision ID: 0003_rollups
Revises: 0001
Create Date: 2026-11-22 08:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_rollups"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "step_rollups",
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("host_index", sa.Integer(), nullable=False),
        sa.Column("bucket", sa.BigInteger(), nullable=False),
        sa.Column("n", sa.Integer(), nullable=False),
        sa.Column("sum_duration", sa.Float(), nullable=False),
        sa.Column("min_duration", sa.Float(), nullable=False),
        sa.Column("max_duration", sa.Float(), nullable=False),
        sa.Column("min_step", sa.BigInteger(), nullable=False),
        sa.Column("max_step", sa.BigInteger(), nullable=False),
        sa.Column("sum_wait", sa.Float(), nullable=False),
        sa.Column("max_wait", sa.Float(), nullable=False),
        sa.Column("max_wait_step", sa.BigInteger(), nullable=False),
        sa.Column("last_ts", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"], ["jobs.id"], name=op.f("fk_step_rollups_job_id_jobs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("job_id", "level", "host_index", "bucket", name=op.f("pk_step_rollups")),
    )


def downgrade() -> None:
    op.drop_table("step_rollups")
