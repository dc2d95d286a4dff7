"""steps: on PostgreSQL, a table partitioned by day (RANGE on ts) so retention drops partitions

Revision ID: 0400
Revises: 0300_goodput
Create Date: 2026-11-23 22:30:00

SQLite keeps its plain table (and row-delete retention): nothing to do there. On PostgreSQL the
rows move into the partitioned table, one partition per UTC day that has rows, plus today's and the
next days', and a default partition for anything else. The primary key becomes (id, ts): a
partitioned table's unique keys must hold its partition key.
"""

import time
from collections.abc import Sequence

from alembic import op
from sqlalchemy import text

revision: str = "0400"
down_revision: str | Sequence[str] | None = "0300_goodput"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = "id, job_id, host_index, step, ts, duration, input_wait"


def _table(name: str, partitioned: bool) -> str:
    pk = "(id, ts)" if partitioned else "(id)"
    tail = " PARTITION BY RANGE (ts)" if partitioned else ""
    return (
        f"CREATE TABLE {name} ("
        "id BIGINT NOT NULL DEFAULT nextval('steps_id_seq'), "
        "job_id INTEGER NOT NULL, host_index INTEGER NOT NULL, step BIGINT NOT NULL, "
        "ts DOUBLE PRECISION NOT NULL, duration DOUBLE PRECISION NOT NULL, "
        "input_wait DOUBLE PRECISION NOT NULL, "
        f"CONSTRAINT pk_steps PRIMARY KEY {pk}, "
        "CONSTRAINT fk_steps_job_id_jobs FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE"
        f"){tail}"
    )


def _swap(partitioned: bool) -> None:
    op.execute("ALTER TABLE steps RENAME TO steps_old")
    op.execute("ALTER TABLE steps_old RENAME CONSTRAINT pk_steps TO pk_steps_old")
    op.execute("ALTER TABLE steps_old RENAME CONSTRAINT fk_steps_job_id_jobs TO fk_steps_old_job_id_jobs")
    op.execute("ALTER INDEX ix_steps_job_host_step RENAME TO ix_steps_old_job_host_step")
    op.execute("ALTER SEQUENCE steps_id_seq OWNED BY NONE")
    op.execute(_table("steps", partitioned))
    op.execute("CREATE INDEX ix_steps_job_host_step ON steps (job_id, host_index, step)")
    if partitioned:
        from tpuwatch.server.series import partitions

        conn = op.get_bind()
        op.execute("CREATE TABLE steps_default PARTITION OF steps DEFAULT")
        days = conn.execute(text("SELECT DISTINCT floor(ts / 86400) * 86400 FROM steps_old")).scalars()
        for day in sorted(days):
            partitions.create_day(conn, float(day))
        partitions.ensure(conn, time.time())
    op.execute(f"INSERT INTO steps ({COLUMNS}) SELECT {COLUMNS} FROM steps_old")
    op.execute("DROP TABLE steps_old")
    op.execute("ALTER SEQUENCE steps_id_seq OWNED BY steps.id")


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _swap(partitioned=True)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        _swap(partitioned=False)
