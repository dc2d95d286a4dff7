"""`tpuwatch server` as a real subprocess (its own process, engine and alert loop)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def server_process(db_url: str, data_dir: Path, env: dict):
    """Yields the base URL; the server's stderr goes to ``data_dir/stderr.log``."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data_dir.mkdir(parents=True, exist_ok=True)
    log = data_dir / "stderr.log"
    cmd = [
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
    ]
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            cmd,
            env=dict(os.environ, TPUWATCH_DATA_DIR=str(data_dir), **env),
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=1) as resp:
                    resp.read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"server did not start: {log.read_text()[-2000:]}") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(20)
