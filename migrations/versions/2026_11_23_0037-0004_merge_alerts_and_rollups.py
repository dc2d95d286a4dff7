"""Join the alerts and rollups branches into one head.

Both were written from 0001 at the same time; this revision changes no schema,
it only gives `alembic upgrade head` a single target again.

Revision ID: 0004_merge
Revises: 0002_alerts, 0003_rollups
Create Date: 2026-11-23 00:37:13
"""

from collections.abc import Sequence

revision: str = "0004_merge"
down_revision: str | Sequence[str] | None = ("0002_alerts", "0003_rollups")
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
