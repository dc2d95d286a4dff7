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

# (job name, workload, host index, shared run id key, index of a job to wait for)
JOBS = [
    ("resnet50-v5e", "healthy", 0, None, None),
    ("llama-8b-v5p", "healthy", 0, "slice", None),
    ("llama-8b-v5p", "healthy", 1, "slice", None),
    ("bert-base-v4", "finished", 0, None, None),
    ("t5-small-v4", "input_bound", 0, None, None),
    # A good run of gpt2-xl first, then the one that fails: the post-mortem compares the two.
    ("gpt2-xl-v5e", "finished", 0, None, None),
    ("gpt2-xl-v5e", "failing", 0, None, 5),
]


def run_demo(port: int = 8000, data_dir: str | None = None, exit_after: float | None = None) -> int:
    import uvicorn

    from tpuwatch.server.db import make_engine, make_sessionmaker, transaction, upgrade
    from tpuwatch.server.main import create_app
    from tpuwatch.server.settings import Settings
    from tpuwatch.server.tokens.service import create_token

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

    # Ctrl-C stops the demo even when a shell started it with SIGINT ignored (a background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    jobs = _DemoJobs(url, token, folder)
    print(welcome(url, token, settings.database_url), flush=True)
    try:
        deadline = time.monotonic() + exit_after if exit_after else None
        while deadline is None or time.monotonic() < deadline:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        jobs.stop()
        server.should_exit = True
        thread.join(10)
    return 0


def welcome(url: str, token: str, database_url: str) -> str:
    """What the demo says first: where to look, and how to send one's own script here.

    >>> print(welcome("http://127.0.0.1:8000", "tpw_x", "sqlite:////tmp/d/demo.db"))  # doctest: +ELLIPSIS
    <BLANKLINE>
    tpuwatch demo is running: open http://127.0.0.1:8000/
    ...
      export TPUWATCH_SERVER=http://127.0.0.1:8000 TPUWATCH_TOKEN=tpw_x
      tpuwatch agent run --job my-first-job -- python train.py
    ...
    """
    return (
        f"\ntpuwatch demo is running: open {url}/\n"
        "To send your own script here, in another shell (project 'demo'):\n"
        f"  export TPUWATCH_SERVER={url} TPUWATCH_TOKEN={token}\n"
        "  tpuwatch agent run --job my-first-job -- python train.py\n"
        "A token of another project for this demo (its database, not the default one):\n"
        f"  tpuwatch token create --db {database_url} --project mine\n"
        "Ctrl-C stops the demo."
    )


class _DemoJobs:
    """The demo's `tpuwatch agent run` children; a job that waits for another starts when that one
    has exited (unless the demo is stopping by then)."""

    def __init__(self, url: str, token: str, folder: Path) -> None:
        self.url, self.token = url, token
        self.env = dict(
            os.environ, TPUWATCH_SPOOL_DIR=str(folder / "spool"), TPUWATCH_DEMO_PID=str(os.getpid())
        )
        for var in ("TPUWATCH_SIDECAR", "TPUWATCH_RUN_ID", "TPUWATCH_JOB", "TPUWATCH_HOST_INDEX"):
            self.env.pop(var, None)
        self.logs = folder / "logs"
        self.logs.mkdir(exist_ok=True)
        self.children: list[subprocess.Popen] = []
        self._lock = threading.Lock()
        self._stopping = False
        runs: dict[str, str] = {}
        started: dict[int, subprocess.Popen | None] = {}
        for i, (name, workload, host, shared, after) in enumerate(JOBS):
            run_id = runs.setdefault(shared, uuid.uuid4().hex) if shared else uuid.uuid4().hex
            args = (name, workload, host, run_id, i)
            if after is None:
                started[i] = self._start(*args)
            else:
                waiter = threading.Thread(target=self._start_after, args=(started[after], *args), daemon=True)
                waiter.start()

    def _start_after(self, first: subprocess.Popen | None, *args) -> None:
        if first is not None:
            first.wait()
        self._start(*args)

    def _start(self, name: str, workload: str, host: int, run_id: str, i: int) -> subprocess.Popen | None:
        cmd = [
            sys.executable,
            "-m",
            "tpuwatch.cli",
            "agent",
            "run",
            "--server",
            self.url,
            "--token",
            self.token,
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
            "tpuwatch.server.demo.workloads",
            workload,
        ]
        with self._lock:
            if self._stopping:
                return None
            with open(self.logs / f"{i}-{name}-h{host}.log", "wb") as out:  # the child keeps its copy
                child = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=self.env)
            self.children.append(child)
            return child

    def stop(self) -> None:
        with self._lock:
            self._stopping = True
            children = list(self.children)
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 10  # one bound for all: Ctrl-C is not 10 s a job
        for child in children:
            try:
                child.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
