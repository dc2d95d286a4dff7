"""jobs.diverged_at: when the run's loss first went NaN or infinite. ``diverged`` is then the
job's status on every page and in the API, whatever its exit code

Revision ID: 0720_diverged
Revises: 0602_log_level_index
Create Date: 2026-11-27 03:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0720_diverged"
down_revision: str | Sequence[str] | None = "0602_log_level_index"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("diverged_at", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("diverged_at")
