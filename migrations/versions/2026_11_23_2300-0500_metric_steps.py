"""metrics: the training step of a training metric (loss, lr) so that charts draw it against steps;
log_lines: the live log, each host's output lines

Revision ID: 0500_metric_steps
Revises: 0400
Create Date: 2026-11-23 23:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0500_metric_steps"
down_revision: str | Sequence[str] | None = "0400"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("metrics") as batch:
        batch.add_column(sa.Column("step", sa.BigInteger(), nullable=True))
    op.create_table(
        "log_lines",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False
        ),
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("host_index", sa.Integer(), nullable=False),
        sa.Column("line_no", sa.BigInteger(), nullable=False),
        sa.Column("ts", sa.Float(), nullable=False),
        sa.Column("stream", sa.String(length=8), nullable=False),
        sa.Column("level", sa.String(length=8), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"], ["jobs.id"], name=op.f("fk_log_lines_job_id_jobs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_log_lines")),
    )
    op.create_index("ix_log_lines_job_id", "log_lines", ["job_id", "id"])
    op.create_index("ix_log_lines_job_host_line", "log_lines", ["job_id", "host_index", "line_no"])


def downgrade() -> None:
    op.drop_index("ix_log_lines_job_host_line", table_name="log_lines")
    op.drop_index("ix_log_lines_job_id", table_name="log_lines")
    op.drop_table("log_lines")
    with op.batch_alter_table("metrics") as batch:
        batch.drop_column("step")
