"""web sessions: server-side page sessions that logout and token revocation end

Revision ID: 0201_web_sessions
Revises: 0200_ingest_integrity
Create Date: 2026-11-23 21:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0201_web_sessions"
down_revision: str | Sequence[str] | None = "0200_ingest_integrity"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("token_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("last_seen_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["token_id"],
            ["api_tokens.id"],
            name=op.f("fk_web_sessions_token_id_api_tokens"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_sessions")),
    )
    op.create_index(op.f("ix_web_sessions_token_id"), "web_sessions", ["token_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_web_sessions_token_id"), table_name="web_sessions")
    op.drop_table("web_sessions")
