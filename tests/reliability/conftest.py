"""A real small file system for the disk-pressure tests: a 64 KiB tmpfs mounted for the test.

Mounting needs root (CI runs as root). Elsewhere the tests skip and print why, unless
TPUWATCH_REQUIRE_TMPFS is set (CI sets it): then they fail, so a green run always ran them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


def _mount(path: Path, size: str) -> str | None:
    """Mount a tmpfs of ``size`` at ``path``; None when done, else why it could not be."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "mounting a tmpfs needs root (CI runs as root)"
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(path)],
        capture_output=True,
        text=True,
    )
    return None if done.returncode == 0 else f"mount -t tmpfs failed: {done.stderr.strip()}"


@pytest.fixture
def tiny_disk(tmp_path) -> Path:
    """A directory on a 64 KiB file system of its own: writes there fail with ENOSPC when it is full."""
    path = tmp_path / "tiny"
    path.mkdir()
    why = _mount(path, "64k")
    if why is not None:
        if os.environ.get("TPUWATCH_REQUIRE_TMPFS"):
            pytest.fail(f"TPUWATCH_REQUIRE_TMPFS is set but {why}")
        print(f"\ndisk-pressure test skipped: {why}")
        pytest.skip(why)
    yield path
    subprocess.run(["umount", "-l", str(path)], check=False)
