"""Runs the demo: a server in this process, demo jobs as real `tpuwatch agent run` children."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

# (job name, workload, host index, shared run id key)
JOBS = [
    ("resnet50-v5e", "healthy", 0, None),
    ("llama-8b-v5p", "healthy", 0, "slice"),
    ("llama-8b-v5p", "healthy", 1, "slice"),
    ("bert-base-v4", "finished", 0, None),
    ("t5-small-v4", "input_bound", 0, None),
    ("gpt2-xl-v5e", "failing", 0, None),
]


def run_demo(port: int = 8000, data_dir: str | None = None, exit_after: float | None = None) -> int:
    import uvicorn

    from app.db import make_engine, make_sessionmaker, transaction, upgrade
    from app.main import create_app
    from app.settings import Settings
    from app.tokens.service import create_token

    folder = Path(data_dir) if data_dir else Path(tempfile.mkdtemp(prefix="tpuwatch-demo-"))
    settings = Settings(data_dir=folder, db=f"sqlite:///{folder / 'demo.db'}", open_access=True)
    print(f"demo database: {settings.database_url}", flush=True)
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    with transaction(make_sessionmaker(engine)) as session:
        token = create_token(session, "demo")
    engine.dispose()

    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            print(f"tpuwatch demo: could not start the server on port {port} (in use?)", file=sys.stderr)
            return 1
        time.sleep(0.05)
    url = f"http://127.0.0.1:{port}"

    children = _start_jobs(url, token, folder)
    print(
        f"\ntpuwatch demo is running: open {url}/\ntoken (project 'demo'): {token}\nCtrl-C stops the demo.",
        flush=True,
    )
    try:
        deadline = time.monotonic() + exit_after if exit_after else None
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        for child in children:
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
        server.should_exit = True
        thread.join(10)
    return 0


def _start_jobs(url: str, token: str, folder: Path) -> list[subprocess.Popen]:
    runs: dict[str, str] = {}
    env = dict(os.environ, TPUWATCH_SPOOL_DIR=str(folder / "spool"))
    for var in ("TPUWATCH_SIDECAR", "TPUWATCH_RUN_ID", "TPUWATCH_JOB", "TPUWATCH_HOST_INDEX"):
        env.pop(var, None)
    children = []
    logs = folder / "logs"
    logs.mkdir(exist_ok=True)
    for name, workload, host, shared in JOBS:
        run_id = runs.setdefault(shared, uuid.uuid4().hex) if shared else uuid.uuid4().hex
        cmd = [
            sys.executable,
            "-m",
            "app.cli",
            "agent",
            "run",
            "--server",
            url,
            "--token",
            token,
            "--job",
            name,
            "--host-index",
            str(host),
            "--run-id",
            run_id,
            "--heartbeat",
            "5",
            "--",
            sys.executable,
            "-m",
            "app.demo.workloads",
            workload,
        ]
        out = open(logs / f"{name}-h{host}.log", "wb")  # noqa: SIM115 - owned by the child
        children.append(subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env))
    return children
