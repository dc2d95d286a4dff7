"""Where a run came from, so runs of one job can be told apart: the git commit of the training
script's folder (short sha, and whether the work tree had changes) and a digest of the config files
beside the script (*.yaml, *.json, *.toml, ... at the folder's top level).

Gathered once, at launch, before training starts. Cheap and never failing: each git call has a
short timeout, the config files read are bounded in number and size, and whatever cannot be
learned is simply left out.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from tpuwatch import wire

CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml", ".gin", ".cfg", ".ini")
MAX_CONFIG_FILES = 64  # the digest covers the first 64 by name
MAX_CONFIG_FILE_BYTES = 1 << 20  # a bigger file is not config (a vocabulary, a dataset index)
MAX_CONFIG_BYTES = 8 << 20  # read at most this much in all
GIT_TIMEOUT = 1.0  # seconds per git call
FILES_SHOWN = 20


def script_folder(command: list[str] | None) -> Path:
    """The folder of the training script in ``command`` (``python train.py ...``), else the
    working folder (``python -m pkg.train``, a shell script, a binary)."""
    for arg in (command or [])[:8]:
        if arg.endswith(".py"):
            path = Path(arg)
            try:
                if path.is_file():
                    return path.resolve().parent
            except OSError:
                return Path.cwd()
    return Path.cwd()


def git_state(folder: Path, timeout: float = GIT_TIMEOUT) -> dict:
    """``{"commit": short sha, "dirty": bool}`` for the git work tree holding ``folder``; ``{}``
    outside one, without git, or when git is slow. ``dirty`` is about tracked files only."""
    sha = _git(folder, timeout, "rev-parse", "--short=12", "HEAD")
    if not sha:
        return {}
    out = {wire.Attr.COMMIT: sha}
    status = _git(folder, timeout, "status", "--porcelain", "--untracked-files=no")
    if status is not None:
        out[wire.Attr.DIRTY] = bool(status)
    return out


def _git(folder: Path, timeout: float, *args: str) -> str | None:
    # GIT_OPTIONAL_LOCKS=0: `git status` must not take the index lock of the engineer's work tree.
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), *args],
            capture_output=True,
            timeout=timeout,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "replace").strip()


def config_digest(folder: Path) -> dict:
    """``{"config_digest": 12 hex, "config_files": [names]}`` over the config files at the top of
    ``folder`` (names and contents, in name order); ``{}`` when there are none."""
    try:
        names = sorted(
            p.name for p in folder.iterdir() if p.suffix.lower() in CONFIG_SUFFIXES and p.is_file()
        )[:MAX_CONFIG_FILES]
    except OSError:
        return {}
    digest = hashlib.sha256()
    used: list[str] = []
    budget = MAX_CONFIG_BYTES
    for name in names:
        try:
            path = folder / name
            size = path.stat().st_size
            if size > MAX_CONFIG_FILE_BYTES or size > budget:
                continue
            data = path.read_bytes()[:size]
        except OSError:
            continue
        budget -= len(data)
        digest.update(name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
        used.append(name)
    if not used:
        return {}
    return {wire.Attr.CONFIG_DIGEST: digest.hexdigest()[:12], wire.Attr.CONFIG_FILES: used[:FILES_SHOWN]}


def gather(command: list[str] | None = None, folder: Path | None = None) -> dict:
    """The run's provenance attributes (commit, dirty, config digest); never raises."""
    try:
        where = folder or script_folder(command)
        return {**git_state(where), **config_digest(where)}
    except Exception:  # noqa: BLE001 - provenance is a nicety; it must never stop a launch
        return {}
