"""log_lines: an index on (job_id, level, id), so the job page's "warnings and errors" and
"errors" filters read the matching lines of a long log, not all of them

Revision ID: 0602_log_level_index
Revises: 0601_rollups_narrow
Create Date: 2026-11-24 01:30:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0602_log_level_index"
down_revision: str | Sequence[str] | None = "0601_rollups_narrow"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_log_lines_job_level", "log_lines", ["job_id", "level", "id"])


def downgrade() -> None:
    op.drop_index("ix_log_lines_job_level", table_name="log_lines")
