"""`tpuwatch demo`: a server on a fresh embedded database with jobs to look at."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="start a server on a fresh database and run demo jobs through the real agent",
        description="Starts the server on a new SQLite database (open on 127.0.0.1, no login) and runs "
        "demo training jobs under `tpuwatch agent run`: one healthy and still running, a two-host "
        "slice, one that finished, one input-bound, and one that fails with a traceback. Ctrl-C stops.",
    )
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--data-dir", help="where the demo database goes (default: a new temporary folder)")
    p.add_argument("--exit-after", type=float, default=None, help="stop after this many seconds")
    p.set_defaults(func=_demo)


def _demo(args: argparse.Namespace) -> int:
    from tpuwatch.server.demo.service import run_demo

    return run_demo(port=args.port, data_dir=args.data_dir, exit_after=args.exit_after)
