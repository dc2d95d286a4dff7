"""Raw steps on PostgreSQL live in a table partitioned by day (``RANGE`` on ``ts``), so retention
drops a day's partition (milliseconds, no dead rows, no vacuum) instead of deleting its rows.

Partitions are named ``steps_pYYYYMMDD`` (the UTC day they hold) and created ahead of time by the
alert loop's leader (and by the migration); a row outside every day partition (an agent clock far
off, or a day nobody created) lands in ``steps_default``, which retention trims by row deletes. On
SQLite ``steps`` is a plain table and every function here does nothing.
"""

from __future__ import annotations

import datetime as dt
import logging
import re
import time

from sqlalchemy import text
from sqlalchemy.engine import Connection

log = logging.getLogger("tpuwatch.series")

PARENT = "steps"
DEFAULT = "steps_default"
DAY = 86400
AHEAD_DAYS = 2  # today and this many days ahead always have a partition
_NAME = re.compile(r"^steps_p(\d{8})$")


def is_partition(name: str) -> bool:
    """True for the partitions of ``steps`` (Alembic leaves them out of its comparisons).

    >>> is_partition("steps_p20261123"), is_partition("steps_default"), is_partition("steps")
    (True, True, False)
    """
    return bool(_NAME.match(name)) or name == DEFAULT


def name_for(day_start: float) -> str:
    """Example:

    >>> name_for(0)
    'steps_p19700101'
    """
    return "steps_p" + dt.datetime.fromtimestamp(day_start, dt.timezone.utc).strftime("%Y%m%d")


def day_of(name: str) -> float | None:
    """The first second of the day partition ``name`` holds; None for anything else.

    >>> day_of("steps_p19700102"), day_of("steps_default")
    (86400.0, None)
    """
    m = _NAME.match(name)
    if not m:
        return None
    d = dt.datetime.strptime(m.group(1), "%Y%m%d").replace(tzinfo=dt.timezone.utc)
    return d.timestamp()


def partitioned(conn: Connection) -> bool:
    if conn.dialect.name != "postgresql":
        return False
    kind = conn.execute(
        text("SELECT relkind FROM pg_class WHERE oid = to_regclass(:t)"), {"t": PARENT}
    ).scalar()
    return kind == "p"


def partitions(conn: Connection) -> list[str]:
    """The partitions of ``steps``, by name."""
    return list(
        conn.execute(
            text(
                "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                "WHERE i.inhparent = to_regclass(:t) ORDER BY c.relname"
            ),
            {"t": PARENT},
        ).scalars()
    )


def create_day(conn: Connection, day_start: float) -> bool:
    """Create the partition of the UTC day starting at ``day_start``; False when it cannot be (rows
    of that day already sit in the default partition: they stay there, trimmed by row deletes)."""
    name = name_for(day_start)
    try:
        with conn.begin_nested():
            conn.execute(
                text(
                    f'CREATE TABLE IF NOT EXISTS "{name}" PARTITION OF {PARENT} '
                    f"FOR VALUES FROM ({float(day_start)!r}) TO ({float(day_start + DAY)!r})"
                )
            )
        return True
    except Exception as exc:  # noqa: BLE001 - the default partition's rows block it; say so once
        log.warning("steps: no partition for %s: %s", name, str(exc).splitlines()[0])
        return False


def ensure(conn: Connection, now: float | None = None, ahead: int = AHEAD_DAYS) -> list[str]:
    """Make sure today's and the next ``ahead`` days' partitions exist; returns those created."""
    if not partitioned(conn):
        return []
    now = time.time() if now is None else now
    have = set(partitions(conn))
    today = now - now % DAY
    made = []
    for k in range(ahead + 1):
        day = today + k * DAY
        if name_for(day) not in have and create_day(conn, day):
            made.append(name_for(day))
    return made


def expired(conn: Connection, cutoff: float) -> list[str]:
    """Day partitions whose whole day ended before ``cutoff``."""
    out = []
    for name in partitions(conn):
        day = day_of(name)
        if day is not None and day + DAY <= cutoff:
            out.append(name)
    return out


def job_ids_in(conn: Connection, name: str) -> list[int]:
    return list(conn.execute(text(f'SELECT DISTINCT job_id FROM "{name}"')).scalars())


def drop(conn: Connection, name: str) -> int:
    """Drop one day partition; returns the rows it held (PostgreSQL's estimate: no count scan)."""
    if day_of(name) is None:
        raise ValueError(f"{name!r} is not a day partition of {PARENT}")
    rows = conn.execute(
        text("SELECT reltuples FROM pg_class WHERE oid = to_regclass(:t)"), {"t": name}
    ).scalar()
    conn.execute(text(f'DROP TABLE "{name}"'))
    return max(0, int(rows or 0))
