"""A damaged SQLite file is found, said so plainly with what to do, and never answered with bare 500s.

The review's case: the database file's last page overwritten, then the server started. Steps, job
pages and ingest answered bare 500s while ``/healthz`` stayed green; nothing said what happened.
Now the server checks the file as it starts (``PRAGMA quick_check``), and from then on (or from
the first query that meets damage, when the check is off) every request but ``/healthz`` answers
503 with what happened and what to do, ``/healthz`` answers 503 "degraded", and agents keep their
data spooled (a 503 is retried).
"""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.conftest import make_token, start_server
from tests.helpers import api, wait_until
from tests.reliability.fakes import free_port
from tpuwatch.server.db import make_engine, make_sessionmaker
from tpuwatch.server.settings import Settings


def _settings(path: Path, **extra) -> Settings:
    return Settings(db=f"sqlite:///{path}", data_dir=path.parent / "data", secret_key="k", **extra)


def _database_with_a_job(tmp_path: Path, sqlite_template: Path) -> tuple[Path, str]:
    """A real database: a job with 15,000 steps stored through ingest, the server stopped cleanly."""
    path = tmp_path / "tpuwatch.db"
    shutil.copy(sqlite_template, path)
    server = start_server(_settings(path))
    engine = make_engine(server.settings.database_url)
    try:
        token = make_token(make_sessionmaker(engine))
        now = time.time()
        with api(server.url, token) as c:
            for seq in range(3):
                steps = [[seq * 5000 + i + 1, now - 20_000 + seq * 5000 + i, 0.1, 0.0] for i in range(5000)]
                body = {"stream": "s", "seq": seq, "run": {"run_id": "r", "job": "big"}, "steps": steps}
                assert c.post("/api/v1/ingest", json=body).status_code == 200
    finally:
        server.stop()
        engine.dispose()
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    return path, token


def _overwrite_page(path: Path, page: int | None = None) -> None:
    """Garbage over one page (the last by default), as a failing disk or a stray write leaves it."""
    size = path.stat().st_size
    page_size = int.from_bytes(path.read_bytes()[16:18], "big")
    offset = size - page_size if page is None else (page - 1) * page_size
    with open(path, "r+b") as fh:
        fh.seek(offset)
        fh.write(os.urandom(page_size))


def _jobs_root_page(path: Path) -> int:
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'jobs'").fetchone()[0]
    finally:
        con.close()


def _assert_degraded(url: str, token: str) -> None:
    health = httpx.get(f"{url}/healthz", timeout=10)
    assert health.status_code == 503, health.text
    body = health.json()
    assert body["status"] == "degraded" and "damaged" in body["database"]
    assert "back-up" in body["what_to_do"] and "README" in body["what_to_do"]
    with api(url, token) as c:
        steps = c.get("/api/v1/jobs/1/steps")
        assert steps.status_code == 503 and "damaged" in steps.json()["detail"], steps.text
        now = time.time()
        body = {"stream": "t", "seq": 0, "run": {"run_id": "r2", "job": "j"}, "steps": [[1, now, 0.1, 0]]}
        ingest = c.post("/api/v1/ingest", json=body)
        assert ingest.status_code == 503, ingest.text  # an agent retries a 503: its data stays spooled
        page = c.get("/jobs/1", headers={"Accept": "text/html"})
        assert page.status_code == 503 and "back-up" in page.text and "<html" in page.text


@pytest.mark.parametrize("page", ["last", "first"])
def test_a_damaged_file_is_found_at_start_and_the_server_says_what_to_do(tmp_path, sqlite_template, page):
    path, token = _database_with_a_job(tmp_path, sqlite_template)
    _overwrite_page(path, None if page == "last" else 1)  # the first holds the header: "not a database"
    port = free_port()
    env = {**os.environ, "TPUWATCH_DATA_DIR": str(tmp_path / "data"), "TPUWATCH_SECRET_KEY": "k"}
    cmd = [sys.executable, "-m", "tpuwatch.cli", "server", "--port", str(port), "--db", f"sqlite:///{path}"]
    log = tmp_path / "server.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen(cmd, env=env, stdout=fh, stderr=fh)
    url = f"http://127.0.0.1:{port}"
    try:

        def answers():
            assert proc.poll() is None, log.read_text()
            try:
                return httpx.get(f"{url}/healthz", timeout=1)
            except httpx.TransportError:
                return None

        wait_until(answers, timeout=60, interval=0.1)
        _assert_degraded(url, token)
    finally:
        proc.terminate()
        proc.wait(20)
    said = log.read_text()
    assert "is damaged" in said and "quick_check" in said and "back-up" in said, said


def test_damage_met_while_serving_turns_the_server_degraded(tmp_path, sqlite_template, caplog):
    """With the start-up check off (a very large file), the first query that meets damage does it."""
    path, token = _database_with_a_job(tmp_path, sqlite_template)
    _overwrite_page(path, _jobs_root_page(path))
    server = start_server(_settings(path, sqlite_quick_check=False, alerts_enabled=False))
    try:
        with caplog.at_level(logging.ERROR, logger="tpuwatch"):
            with api(server.url, token) as c:
                assert httpx.get(f"{server.url}/healthz").status_code == 200  # nothing known yet
                first = c.get("/api/v1/jobs")
            assert first.status_code == 503 and "damaged" in first.json()["detail"], first.text
            _assert_degraded(server.url, token)
    finally:
        server.stop()
    assert any("damaged" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("check", [True, False])
def test_a_healthy_file_serves_as_before(tmp_path, sqlite_template, check):
    path, token = _database_with_a_job(tmp_path, sqlite_template)
    server = start_server(_settings(path, sqlite_quick_check=check))
    try:
        assert httpx.get(f"{server.url}/healthz").json()["status"] == "ok"
        with api(server.url, token) as c:
            assert c.get("/api/v1/jobs/1/steps").status_code == 200
    finally:
        server.stop()
