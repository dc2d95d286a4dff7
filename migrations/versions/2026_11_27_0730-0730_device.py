"""device_rounds (libtpu's runtime metrics, a packed row per host per round) and device_asks (the
server's asks for the cores' state)

Revision ID: 0730_device
Revises: 0720_diverged
Create Date: 2026-11-27 07:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0730_device"
down_revision: str | Sequence[str] | None = "0720_diverged"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "device_rounds",
        sa.Column(
            "id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), autoincrement=True, nullable=False
        ),
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("host_index", sa.Integer(), nullable=False),
        sa.Column("ts", sa.Float(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"], ["jobs.id"], name=op.f("fk_device_rounds_job_id_jobs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_device_rounds")),
    )
    op.create_index("ix_device_rounds_job_ts", "device_rounds", ["job_id", "ts"], unique=False)
    op.create_table(
        "device_asks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("asked_at", sa.Float(), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(
            ["job_id"], ["jobs.id"], name=op.f("fk_device_asks_job_id_jobs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_device_asks")),
    )
    op.create_index("ix_device_asks_job_asked", "device_asks", ["job_id", "asked_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_device_asks_job_asked", table_name="device_asks")
    op.drop_table("device_asks")
    op.drop_index("ix_device_rounds_job_ts", table_name="device_rounds")
    op.drop_table("device_rounds")
