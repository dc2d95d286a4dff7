"""goodput: the training run a job is an attempt of, its last goodput bar, and each project's floors

Revision ID: 0300_goodput
Revises: 0201_web_sessions
Create Date: 2026-11-23 19:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0300_goodput"
down_revision: str | Sequence[str] | None = "0201_web_sessions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("group_key", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("goodput", sa.JSON(), nullable=True))
    # Jobs from before groups: project + job name, the default an agent without --group gets.
    op.execute("UPDATE jobs SET group_key = name WHERE group_key IS NULL")
    op.create_index("ix_jobs_project_group_started", "jobs", ["project_id", "group_key", "started_at"])
    with op.batch_alter_table("projects") as batch:
        batch.add_column(sa.Column("goodput_floor", sa.Float(), nullable=True))
        batch.add_column(sa.Column("mfu_floor", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("projects") as batch:
        batch.drop_column("mfu_floor")
        batch.drop_column("goodput_floor")
    op.drop_index("ix_jobs_project_group_started", table_name="jobs")
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("goodput")
        batch.drop_column("group_key")
