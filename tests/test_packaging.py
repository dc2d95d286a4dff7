"""The package as users install it: the built wheel, non-editable, in clean virtualenvs.

One venv gets the wheel with its server extra and runs `tpuwatch server` on a fresh SQLite file
(migrations from the package), another gets the wheel alone (the agent: no dependencies) and
records a failing job into that server. Every page and a static file must then answer. Both run
from a folder outside the checkout, so nothing is imported from the source tree by accident.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx
import pytest

from tests.helpers import wait_until
from tests.reliability.fakes import free_port

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
PACKAGE_DIRS = PYPROJECT["tool"]["setuptools"]["package-dir"]


def test_the_package_list_covers_every_folder_of_the_tree():
    """Every folder with an __init__.py under a mapped folder is a listed package, and vice versa."""
    expected = set()
    for name, folder in PACKAGE_DIRS.items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            expected.add(".".join((name, *init.parent.relative_to(root).parts)))
    assert set(PYPROJECT["tool"]["setuptools"]["packages"]) == expected


def _venv(path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=120)
    return path / "bin"


def _pip(bin_dir: Path, *args: str) -> None:
    proc = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TPUWATCH_", "PYTHON", "VIRTUAL_ENV"))}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built from a copy of the mapped folders (as the Dockerfile's build stage does)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    for folder in PACKAGE_DIRS.values():
        shutil.copytree(REPO / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [built] = out.glob("tpuwatch-*.whl")
    return built


def _site_packages(bin_dir: Path) -> Path:
    out = subprocess.run(
        [str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


@pytest.fixture(scope="module")
def agent_venv(wheel, tmp_path_factory) -> Path:
    bin_dir = _venv(tmp_path_factory.mktemp("agent") / "venv")
    _pip(bin_dir, str(wheel))
    return bin_dir


@pytest.fixture(scope="module")
def server_venv(wheel, tmp_path_factory) -> Path:
    bin_dir = _venv(tmp_path_factory.mktemp("server") / "venv")
    _pip(bin_dir, f"{wheel}[server]")
    return bin_dir


def test_the_agent_alone_installs_no_dependency_and_no_top_level_app_or_agent(agent_venv, tmp_path):
    freeze = subprocess.run(
        [str(agent_venv / "python"), "-m", "pip", "freeze", "--all"],
        capture_output=True,
        text=True,
        check=True,
    )
    installed = {line.split("==")[0].split(" @ ")[0].lower() for line in freeze.stdout.splitlines()}
    assert installed - {"pip", "setuptools", "wheel"} == {"tpuwatch"}
    site = _site_packages(agent_venv)
    assert (site / "tpuwatch" / "__init__.py").is_file()
    assert not (site / "app").exists() and not (site / "agent").exists()
    probe = (
        "import sys, tpuwatch; print(tpuwatch.__file__); "
        "print(any(m.startswith('tpuwatch.server') for m in sys.modules))"
    )
    out = subprocess.run(
        [str(agent_venv / "python"), "-c", probe],
        cwd=tmp_path,
        env=_clean_env(),
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    path, loaded_server = out.stdout.split()
    assert path.startswith(str(site)) and loaded_server == "False"
    # The CLI works there too, and a server command says which extra it needs.
    helped = subprocess.run(
        [str(agent_venv / "tpuwatch"), "--help"], capture_output=True, text=True, cwd=tmp_path
    )
    assert helped.returncode == 0 and "agent" in helped.stdout
    served = subprocess.run(
        [str(agent_venv / "tpuwatch"), "server"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_clean_env(),
    )
    assert served.returncode == 2 and "pip install 'tpuwatch[server]'" in served.stderr


AGENT_SCRIPT = textwrap.dedent(
    """
    import time, tpuwatch
    mon = tpuwatch.init(job="from-the-wheel")
    for step in range(40):
        with mon.input_wait():
            time.sleep(0.001)
        with mon.step():
            time.sleep(0.005)
    mon.metric("tpu.hbm.used_bytes", 3e9, chip=0)
    mon.metric("tpu.hbm.total_bytes", 16e9, chip=0)
    raise RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.")
    """
)


def test_the_wheel_serves_every_page_and_migrates_its_database(server_venv, agent_venv, tmp_path):
    site = _site_packages(server_venv)
    assert (site / "tpuwatch" / "server" / "migrations" / "env.py").is_file()
    assert not (site / "app").exists() and not (site / "agent").exists()
    db = f"sqlite:///{tmp_path / 'fresh' / 'tpuwatch.db'}"
    env = _clean_env(TPUWATCH_DATA_DIR=str(tmp_path / "data"), TPUWATCH_ALERT_EVAL_SECONDS="0.5")
    tw = str(server_venv / "tpuwatch")
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    server = subprocess.Popen(
        [tw, "server", "--port", str(port), "--db", db],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    with server, contextlib.ExitStack() as stack:
        stack.callback(server.terminate)
        wait_until(lambda: server.poll() is not None or _healthy(url), timeout=60, interval=0.2)
        stack.callback(log.close)
        assert server.poll() is None, (tmp_path / "server.log").read_text()
        made = subprocess.run(
            [tw, "token", "create", "--project", "wheel", "--db", db],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert made.returncode == 0, made.stderr
        token = made.stdout.split()[-1]

        script = tmp_path / "train.py"
        script.write_text(AGENT_SCRIPT)
        ran = subprocess.run(
            [str(agent_venv / "python"), str(script)],
            cwd=tmp_path,
            env=_clean_env(
                TPUWATCH_SERVER=url, TPUWATCH_TOKEN=token, TPUWATCH_SPOOL_DIR=str(tmp_path / "spool")
            ),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert ran.returncode == 1 and "RESOURCE_EXHAUSTED" in ran.stderr

        client = stack.enter_context(
            httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
        )
        job = wait_until(
            lambda: next(
                (j for j in client.get("/api/v1/jobs").json()["jobs"] if j["status"] == "failed"), None
            ),
            timeout=30,
        )
        assert job["steps"] == 40
        alert = wait_until(lambda: (client.get("/api/v1/alerts").json()["alerts"] or [None])[0], timeout=30)

        for path in _page_paths():
            page = path.replace("{job_id}", str(job["id"])).replace("{alert_id}", str(alert["id"]))
            resp = client.get(page)
            assert resp.status_code == 200, (page, resp.status_code, resp.text[:300])
            assert "text/html" in resp.headers["content-type"], page
        for asset in ("/static/css/app.css", "/static/js/charts.js", "/static/vendor/plotly.min.js"):
            resp = client.get(asset)
            assert resp.status_code == 200 and len(resp.content) > 100, asset
        assert "tpuwatch_job_hbm_used_ratio" in client.get("/metrics").text


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _page_paths() -> list[str]:
    """Every HTML page the app serves, read from its OpenAPI paths (so a new page is covered too)."""
    from tpuwatch.server.main import create_app
    from tpuwatch.server.settings import Settings

    schema = create_app(Settings(db="sqlite://", secret_key="x")).openapi()
    paths = [
        path
        for path, ops in schema["paths"].items()
        if "get" in ops and not path.startswith("/api/") and path not in ("/healthz", "/metrics")
    ]
    assert "/" in paths and "/jobs/{job_id}" in paths and "/login" in paths, paths
    return paths


def test_the_wheel_metadata_names_the_extras(wheel):
    import zipfile

    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta = zf.read(next(n for n in names if n.endswith("METADATA"))).decode()
    assert "Provides-Extra: server" in meta
    assert not [
        line for line in meta.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    assert "tpuwatch/server/templates/base.html" in names
    assert not [n for n in names if n.split("/")[0] in ("app", "agent", "tests", "bench")]
