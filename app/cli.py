"""The `tpuwatch` command.

Each domain registers its own subcommands (a ``register(subparsers)`` function in its ``cli.py``).
Those modules import only the standard library at module level, so `tpuwatch agent ...` works on a
TPU VM that has only the agent installed; server code is imported inside the command functions.
"""

from __future__ import annotations

import argparse
import sys

# Modules that contribute subcommands, in the order `--help` lists them.
_COMMAND_MODULES = (
    "agent.cli",
    "app.server_cli",
    "app.tokens.cli",
    "app.triage.cli",
    "app.alerts.cli",
    "app.demo.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tpuwatch",
        description="Watch training jobs on Cloud TPU VMs and triage what goes wrong.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    import importlib

    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:  # a domain not built yet, or an extra not installed
            if exc.name and not name.startswith(exc.name):
                raise
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except KeyboardInterrupt:
        return 130
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
