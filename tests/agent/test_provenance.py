"""A run's provenance (agent/provenance.py) from a real git repository: short sha, the dirty flag
for tracked changes only, a config digest that moves with the config files and nothing else, and
no failure where there is no git, no repository or a slow git."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import pytest

import tpuwatch
from tests.conftest import make_token
from tests.helpers import api, wait_for_job
from tpuwatch import provenance


def _git(repo, *args):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    out = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)
    return out.stdout.decode().strip()


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "proj"
    r.mkdir()
    _git(r, "init", "-q")
    (r / "train.py").write_text("print('train')\n")
    (r / "config.yaml").write_text("lr: 0.001\n")
    (r / "model.json").write_text('{"layers": 4}\n')
    _git(r, "add", ".")
    _git(r, "commit", "-qm", "first")
    return r


def test_commit_and_dirty_flag_of_the_scripts_repository(repo):
    sha = _git(repo, "rev-parse", "HEAD")
    state = provenance.git_state(repo)
    assert sha.startswith(state["commit"]) and len(state["commit"]) >= 7
    assert state["dirty"] is False

    (repo / "notes.txt").write_text("untracked files do not make the tree dirty\n")
    assert provenance.git_state(repo)["dirty"] is False
    (repo / "train.py").write_text("print('changed')\n")
    assert provenance.git_state(repo)["dirty"] is True

    # The folder comes from the command: the script's folder, not the working folder.
    cmd = [sys.executable, str(repo / "train.py"), "--lr", "3"]
    assert provenance.script_folder(cmd) == repo.resolve()
    got = provenance.gather(cmd)
    assert got["commit"] == state["commit"] and got["dirty"] is True
    assert got["config_files"] == ["config.yaml", "model.json"]


def test_config_digest_follows_config_files_only(repo):
    first = provenance.config_digest(repo)["config_digest"]
    assert len(first) == 12
    (repo / "train.py").write_text("print('code is not config')\n")
    (repo / "data.bin").write_bytes(b"\0" * 100)
    assert provenance.config_digest(repo)["config_digest"] == first
    (repo / "config.yaml").write_text("lr: 0.0003\n")
    second = provenance.config_digest(repo)["config_digest"]
    assert second != first
    (repo / "config.yaml").write_text("lr: 0.001\n")
    assert provenance.config_digest(repo)["config_digest"] == first  # content, not time, decides

    # A big file is not config (a vocabulary, an index): left out, the digest unchanged.
    (repo / "vocab.json").write_bytes(b"x" * (provenance.MAX_CONFIG_FILE_BYTES + 1))
    assert provenance.config_digest(repo)["config_digest"] == first
    sub = repo / "nested"
    sub.mkdir()
    (sub / "other.yaml").write_text("a: 1\n")  # top level only
    assert provenance.config_digest(repo)["config_digest"] == first


def test_nothing_to_learn_is_empty_and_never_raises(tmp_path, monkeypatch):
    bare = tmp_path / "bare"
    bare.mkdir()
    assert provenance.gather(folder=bare) == {}
    assert provenance.gather(folder=tmp_path / "missing") == {}
    # No git on PATH at all.
    monkeypatch.setenv("PATH", str(bare))
    assert provenance.git_state(tmp_path) == {}


def test_a_hanging_git_is_cut_short(repo, tmp_path, monkeypatch):
    fake = tmp_path / "bin"
    fake.mkdir()
    slow = fake / "git"
    slow.write_text("#!/bin/sh\nsleep 5\n")
    slow.chmod(slow.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ['PATH']}")
    t0 = time.monotonic()
    assert provenance.git_state(repo, timeout=0.3) == {}
    assert time.monotonic() - t0 < 2.0
    assert provenance.gather(folder=repo)["config_files"] == ["config.yaml", "model.json"]


def test_the_sidecar_sends_name_commit_and_digest(live_server, sessions, spool_dir, repo, tmp_path):
    token = make_token(sessions, project="named")
    script = repo / "train.py"
    script.write_text("import tpuwatch\nmon = tpuwatch.init()\nwith mon.step(1):\n    pass\nmon.close()\n")
    _git(repo, "commit", "-qam", "a step")
    sha = _git(repo, "rev-parse", "--short=12", "HEAD")
    cmd = [sys.executable, "-m", "tpuwatch.cli", "agent", "run", "--server", live_server.url]
    cmd += ["--token", token, "--job", "named-job", "--name", "lr 3e-4", "--no-tpu-metrics", "--"]
    cmd += [sys.executable, str(script)]
    done = subprocess.run(cmd, capture_output=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "named-job", "succeeded")
        label = c.get(f"/api/v1/jobs/{job['id']}").json()["label"]
    assert label["name"] == "lr 3e-4"
    assert label["commit"] == sha and label["dirty"] is False
    assert label["config_files"] == ["config.yaml", "model.json"] and len(label["config_digest"]) == 12


def test_init_outside_the_sidecar_names_the_run_and_gathers_its_own(repo, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "argv", [str(repo / "train.py")])
    monkeypatch.delenv("TPUWATCH_SIDECAR", raising=False)
    monkeypatch.delenv("TPUWATCH_ATTRS", raising=False)
    mon = tpuwatch.Monitor("named", name="warmup 2k", spool_dir=tmp_path / "spool", send=False)
    try:
        assert mon.attrs["run_name"] == "warmup 2k"
        assert mon.attrs["commit"] == _git(repo, "rev-parse", "--short=12", "HEAD")
        assert mon.attrs["config_files"] == ["config.yaml", "model.json"]
    finally:
        mon.close()
