"""The declarative base, engines, sessions and migrations. Nothing here runs at import time.

``Base`` lives here, with the engine, so that the tables (``tpuwatch.server.models``) import this
module and no domain module: domains import the tables, never the other way round.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import BigInteger, Engine, Integer, MetaData, create_engine, event
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

from tpuwatch.server.resources import resource_dir

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# SQLite only makes INTEGER PRIMARY KEY an alias of the rowid (fast appends); PostgreSQL wants BIGINT.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def make_engine(url: str, pool_size: int = 10, max_overflow: int = 20, pool_timeout: float = 30.0) -> Engine:
    """An engine for ``url``; SQLite gets WAL and a busy timeout so readers never block ingest.

    The server passes a short ``pool_timeout``: a request that cannot get a connection soon is
    answered 503 with Retry-After (app/ops/admission.py) rather than waiting on in a worker thread.
    """
    pool = dict(pool_size=pool_size, max_overflow=max_overflow, pool_timeout=pool_timeout)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        memory = not path or path == ":memory:"
        if not memory:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"timeout": 30, "check_same_thread": False}, **({} if memory else pool)
        )

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn, _record):
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return create_engine(url, pool_pre_ping=True, **pool)


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One unit of work: commit on success, roll back on any error."""
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def alembic_config(url: str):
    from alembic.config import Config

    # No alembic.ini: the migrations come from the installed package, wherever it lives.
    cfg = Config()
    cfg.set_main_option("script_location", str(resource_dir("migrations")))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the schema at ``url`` up to date (Alembic owns the schema)."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)


def insert_ignore(session: Session, table, values, conflict_cols: list[str]) -> int:
    """INSERT ... ON CONFLICT DO NOTHING on SQLite and PostgreSQL; returns rows inserted."""
    if session.bind.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    stmt = insert(table).values(values).on_conflict_do_nothing(index_elements=conflict_cols)
    # RETURNING, not rowcount: psycopg reports -1 for a conflicting INSERT through SQLAlchemy.
    stmt = stmt.returning(*[table.c[c] for c in conflict_cols[:1]])
    return len(session.execute(stmt).all())


def bulk_insert(
    session: Session, table: str, columns: tuple[str, ...], rows: list[tuple], numbers_only: bool = False
) -> None:
    """Append many rows fast, inside the session's transaction.

    The ORM's bulk path costs several µs a row; the large tables (steps, metrics) go straight to
    the driver instead: COPY on PostgreSQL, executemany on SQLite. ``table`` and ``columns`` are
    fixed identifiers from our own code, never user input. ``numbers_only`` promises rows of plain
    ints and finite floats (no None, no text), which lets PostgreSQL's COPY text be built faster.
    """
    if not rows:
        return
    conn = session.connection()
    cols = ", ".join(columns)
    if conn.dialect.name == "postgresql":
        # COPY text format, built in one string: several times faster than write_row per row.
        field = str if numbers_only else _copy_field
        text = "".join("\t".join(map(field, row)) + "\n" for row in rows)
        with conn.connection.dbapi_connection.cursor() as cur:
            with cur.copy(f"COPY {table} ({cols}) FROM STDIN") as copy:
                copy.write(text)
    else:
        marks = ", ".join("?" * len(columns))
        conn.exec_driver_sql(f"INSERT INTO {table} ({cols}) VALUES ({marks})", rows)


def _copy_field(value) -> str:
    if value is None:
        return "\\N"
    if isinstance(value, str):
        return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    return repr(value) if isinstance(value, float) else str(value)
