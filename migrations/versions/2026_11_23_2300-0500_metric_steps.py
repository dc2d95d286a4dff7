"""metrics: the training step of a training metric (loss, lr) so that charts draw it against steps

Revision ID: 0500_metric_steps
Revises: 0300_goodput
Create Date: 2026-11-23 23:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0500_metric_steps"
down_revision: str | Sequence[str] | None = "0300_goodput"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("metrics") as batch:
        batch.add_column(sa.Column("step", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("metrics") as batch:
        batch.drop_column("step")
