"""Helpers for benchmarks: a real `tpuwatch server` subprocess on a fresh database."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from contextlib import contextmanager

PG_URL = (
    os.environ.get("TPUWATCH_BENCH_PG_URL")
    or os.environ.get("TPUWATCH_TEST_DATABASE_URL")
    or ("postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def fresh_postgres():
    """A new PostgreSQL database for one benchmark, dropped afterwards."""
    from sqlalchemy import text
    from sqlalchemy.engine import make_url

    from tpuwatch.server.db import make_engine

    name = f"tpuwatch_bench_{uuid.uuid4().hex[:8]}"
    admin = make_engine(PG_URL)
    with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    url = make_url(PG_URL).set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with admin.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def server_process(db_url: str, data_dir: str, extra_env: dict | None = None, workers: int = 1):
    """`tpuwatch server` in a subprocess (``workers`` processes); yields (base URL, Popen).

    Its stderr goes to ``server.log`` in ``data_dir``, not to a pipe: nobody reads a pipe while the
    benchmark runs, and a server that logs enough would block on a full one."""
    port = free_port()
    os.makedirs(data_dir, exist_ok=True)
    log_path = os.path.join(data_dir, "server.log")
    log_file = open(log_path, "wb")  # noqa: SIM115 - closed when the server is done
    # Every emulated or real agent of a bench comes from 127.0.0.1, standing for thousands of
    # machines: the per-address connection cap (one client's share) is off unless a bench sets it.
    env = dict(os.environ, TPUWATCH_DATA_DIR=data_dir, TPUWATCH_MAX_CONNECTIONS_PER_ADDRESS="0")
    env.update(extra_env or {})
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tpuwatch.cli",
            "server",
            "--port",
            str(port),
            "--db",
            db_url,
            "--log-level",
            "warning",
            "--workers",
            str(workers),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log_file,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                proc.wait(20)
                log_file.close()
                raise RuntimeError(f"server did not start: {_tail(log_path)}") from None
            time.sleep(0.1)
    try:
        yield url, proc
    finally:
        proc.terminate()
        proc.wait(20)
        log_file.close()


def _tail(path: str, size: int = 2000) -> str:
    with open(path, "rb") as f:
        f.seek(max(0, os.path.getsize(path) - size))
        return f.read().decode(errors="replace")


def make_token(db_url: str, project: str = "bench") -> str:
    from tpuwatch.server.db import make_engine, make_sessionmaker, transaction
    from tpuwatch.server.tokens.service import create_token

    engine = make_engine(db_url)
    with transaction(make_sessionmaker(engine)) as s:
        token = create_token(s, project)
    engine.dispose()
    return token
