"""step_rollups: min/max step time and max input wait as REAL, the columns packed without padding

Revision ID: 0601_rollups_narrow
Revises: 0600_ingest_keys
Create Date: 2026-11-24 01:30:00

A pod writes some 6 million rollup rows a day (1,024 hosts, a 16-step bucket each); on PostgreSQL
a row goes from 128 to 112 bytes. The extremes are single step times as agents round them (seven
digits): a 4-byte float keeps them to one part in ten million. Sums and times stay 8-byte (they
add up). On PostgreSQL the table is rebuilt with the 8-byte columns together (no alignment padding
between 4-byte ones); SQLite stores every float in 8 bytes, so there only the declared types change.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0601_rollups_narrow"
down_revision: str | Sequence[str] | None = "0600_ingest_keys"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

EXTREMES = ("min_duration", "max_duration", "max_wait")


ORIGINAL = (  # 0003's order
    "job_id level host_index bucket n sum_duration min_duration max_duration min_step max_step "
    "sum_wait max_wait max_wait_step last_ts"
).split()
PACKED = (  # 4-byte columns, then 8-byte ones, then the 4-byte extremes: no padding between
    "job_id level host_index n bucket sum_duration sum_wait last_ts min_step max_step max_wait_step "
    "min_duration max_duration max_wait"
).split()
INTS = ("job_id", "level", "host_index", "n")
BIGINTS = ("bucket", "min_step", "max_step", "max_wait_step")


def _columns(narrow: bool) -> list[sa.Column]:
    def kind(name: str):
        if name in INTS:
            return sa.Integer()
        if name in BIGINTS:
            return sa.BigInteger()
        return sa.REAL() if narrow and name in EXTREMES else sa.Float()

    return [sa.Column(c, kind(c), nullable=False) for c in (PACKED if narrow else ORIGINAL)]


def _rebuild(narrow: bool) -> None:
    op.execute("ALTER TABLE step_rollups RENAME TO step_rollups_old")
    op.execute("ALTER TABLE step_rollups_old RENAME CONSTRAINT pk_step_rollups TO pk_step_rollups_old")
    op.execute(
        "ALTER TABLE step_rollups_old RENAME CONSTRAINT fk_step_rollups_job_id_jobs "
        "TO fk_step_rollups_old_job_id_jobs"
    )
    cols = _columns(narrow)
    op.create_table(
        "step_rollups",
        *cols,
        sa.ForeignKeyConstraint(
            ["job_id"], ["jobs.id"], name=op.f("fk_step_rollups_job_id_jobs"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("job_id", "level", "host_index", "bucket", name=op.f("pk_step_rollups")),
    )
    names = ", ".join(c.name for c in cols)
    op.execute(f"INSERT INTO step_rollups ({names}) SELECT {names} FROM step_rollups_old")
    op.drop_table("step_rollups_old")


def _retype(narrow: bool) -> None:
    with op.batch_alter_table("step_rollups") as batch:
        for c in EXTREMES:
            batch.alter_column(
                c,
                existing_type=sa.Float() if narrow else sa.REAL(),
                type_=sa.REAL() if narrow else sa.Float(),
                existing_nullable=False,
            )


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _rebuild(narrow=True)
    else:
        _retype(narrow=True)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _rebuild(narrow=False)
    else:
        _retype(narrow=False)
