"""Where the agent's defaults come from: flags first, then ``TPUWATCH_*`` variables, then these."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

# Variables the sidecar sets for its child so that the child's data lands on the sidecar's job.
ENV_SIDECAR = "TPUWATCH_SIDECAR"
ENV_RUN_ID = "TPUWATCH_RUN_ID"
ENV_JOB = "TPUWATCH_JOB"
ENV_HOST_INDEX = "TPUWATCH_HOST_INDEX"
ENV_SPOOL_DIR = "TPUWATCH_SPOOL_DIR"
ENV_SERVER = "TPUWATCH_SERVER"
ENV_TOKEN = "TPUWATCH_TOKEN"
ENV_ATTRS = "TPUWATCH_ATTRS"  # JSON run attributes the sidecar hands its child (identity)
ENV_GROUP = "TPUWATCH_GROUP"  # the training run a relaunch belongs to (default: project + job name)
ENV_PEAK_FLOPS = "TPUWATCH_PEAK_FLOPS"  # FLOP/s of this host's chips, for MFU where the type is unknown


def default_spool_dir() -> Path:
    """``TPUWATCH_SPOOL_DIR``, else the user's cache directory (XDG on Linux)."""
    env = os.environ.get(ENV_SPOOL_DIR)
    if env:
        return Path(env)
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "tpuwatch" / "spool"


def env_str(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(name)
    return value if value else default


def env_int(name: str, default: int | None = None) -> int | None:
    value = os.environ.get(name)
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        print(f"tpuwatch: ignoring {name}={value!r}: not a whole number", file=sys.stderr)
        return default


def env_float(name: str, default: float | None = None) -> float | None:
    value = os.environ.get(name)
    if not value:
        return default
    try:
        return float(value)
    except ValueError:
        print(f"tpuwatch: ignoring {name}={value!r}: not a number", file=sys.stderr)
        return default


def code_version() -> str | None:
    """``TPUWATCH_CODE_VERSION``, else the git commit checked out in (or above) the working folder,
    read from ``.git`` without running git."""
    env = env_str("TPUWATCH_CODE_VERSION")
    if env:
        return env[:100]
    try:
        here = Path.cwd()
        for folder in (here, *list(here.parents)[:4]):
            head = folder / ".git" / "HEAD"
            if head.is_file():
                text = head.read_text().strip()
                if not text.startswith("ref: "):
                    return text[:12]
                ref = folder / ".git" / text[5:]
                return ref.read_text().strip()[:12] if ref.is_file() else None
    except OSError:
        return None
    return None


def hostname() -> str:
    return socket.gethostname()
