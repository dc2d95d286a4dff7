"""The Dockerfile and docker-compose.yml, checked without a Docker engine: parsed, their commands
run through our own CLI parser, and the server command from the compose file actually started
(with its worker count) against a real database."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import yaml
from sqlalchemy.engine import make_url

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

from tests.helpers import wait_until
from tests.reliability.fakes import free_port
from tpuwatch.cli import build_parser

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())


def _dockerfile() -> list[tuple[str, str]]:
    """(instruction, arguments) pairs, continuation lines joined, comments dropped."""
    text = (REPO_ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def test_the_image_builds_the_wheel_and_installs_it_not_editable_running_as_a_user():
    steps = _dockerfile()
    assert ("FROM", "python:3.11-slim AS build") in steps and steps.count(("FROM", "python:3.11-slim")) == 1
    runs = [arg for word, arg in steps if word == "RUN"]
    assert any(arg.startswith("pip wheel") for arg in runs)
    install = next(arg for arg in runs if arg.startswith("pip install"))
    assert "/wheels/tpuwatch-*.whl)[server]" in install and " -e " not in install
    users = [arg for word, arg in steps if word == "USER"]
    assert users and users[-1] not in ("root", "0")
    # The build stage copies every folder the wheel maps (pyproject's package-dir) and nothing else.
    copied = {shlex.split(arg)[0] for word, arg in steps if word == "COPY" and not arg.startswith("--from")}
    mapped = set(
        tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
            "package-dir"
        ].values()
    )
    assert mapped <= copied
    for source in copied:
        assert (REPO_ROOT / source).exists(), source


def test_the_image_command_is_a_valid_server_command_listening_on_all_addresses():
    [cmd] = [json.loads(arg) for word, arg in _dockerfile() if word == "CMD"]
    assert cmd[0] == "tpuwatch"
    args = build_parser().parse_args(cmd[1:])
    assert args.command == "server" and args.host == "0.0.0.0"
    [health] = [arg for word, arg in _dockerfile() if word == "HEALTHCHECK"]
    assert "/healthz" in health


def test_dockerignore_keeps_the_virtualenv_and_git_out_of_the_build():
    ignored = (REPO_ROOT / ".dockerignore").read_text().split()
    assert ".venv" in ignored and ".git" in ignored


def test_compose_runs_postgres_with_a_healthcheck_and_a_volume(compose):
    db = compose["services"]["db"]
    assert db["image"].startswith("postgres:15")
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    volume = db["volumes"][0].split(":")[0]
    assert volume in compose["volumes"]


def test_compose_migrates_once_then_starts_the_server_against_postgres(compose):
    services = compose["services"]
    migrate, server = services["migrate"], services["server"]
    assert build_parser().parse_args(migrate["command"][1:]).func.__name__ == "_upgrade"
    assert migrate["restart"] == "no"
    assert migrate["depends_on"]["db"]["condition"] == "service_healthy"
    assert server["depends_on"]["db"]["condition"] == "service_healthy"
    assert server["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    for svc in (migrate, server):
        url = make_url(svc["environment"]["TPUWATCH_DB"].replace("${POSTGRES_PASSWORD:-tpuwatch}", "pw"))
        assert url.drivername == "postgresql+psycopg" and url.host == "db"
        assert url.database == services["db"]["environment"]["POSTGRES_DB"]
    args = build_parser().parse_args(server["command"][1:])
    assert args.command == "server" and args.host == "0.0.0.0"
    assert any(p.endswith(":8000") for p in server["ports"]) and args.port == 8000


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc to count workers")
def test_the_compose_server_command_starts_its_workers_and_serves(compose, database_url, tmp_path):
    command = compose["services"]["server"]["command"]
    workers = int(command[command.index("--workers") + 1])
    assert workers >= 2
    port = free_port()
    argv = [sys.executable, "-m", "tpuwatch.cli", *command[1:]]
    argv[argv.index("--port") + 1] = str(port)
    argv[argv.index("--host") + 1] = "127.0.0.1"  # the test listens on loopback only
    env = {
        **os.environ,
        "TPUWATCH_DB": database_url,
        "TPUWATCH_DATA_DIR": str(tmp_path),
        "TPUWATCH_SECRET_KEY": "",
    }
    with open(tmp_path / "server.log", "wb") as log:
        proc = subprocess.Popen(argv, env=env, stdout=log, stderr=log)
    try:

        def serving():
            assert proc.poll() is None, (tmp_path / "server.log").read_text()
            try:
                return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
            except httpx.TransportError:
                return False

        wait_until(serving, timeout=60, interval=0.2)

        def workers_up():
            spawned = [p for p in _children(proc.pid) if "spawn_main" in _cmdline(p)]
            return spawned if len(spawned) >= workers else None

        spawned = wait_until(workers_up, timeout=30)
        assert len(spawned) == workers
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as c:  # several connections, all served
            assert all(c.get("/healthz").status_code == 200 for _ in range(20))
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)
    assert not _children(proc.pid), "workers outlived the server"
