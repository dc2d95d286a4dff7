"""The `tpuwatch` command.

Each domain registers its own subcommands (a ``register(subparsers)`` function in its ``cli.py``).
Those modules import only the standard library at module level, so `tpuwatch --help` and
`tpuwatch agent ...` work on a TPU VM that has only the agent installed (`pip install tpuwatch`);
server code is imported inside the command functions, and a server command run without the
server's packages says which extra to install.
"""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that contribute subcommands, in the order `--help` lists them.
_COMMAND_MODULES = (
    "tpuwatch.commands",
    "tpuwatch.server.server_cli",
    "tpuwatch.server.tokens.cli",
    "tpuwatch.server.triage.cli",
    "tpuwatch.server.alerts.cli",
    "tpuwatch.server.demo.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tpuwatch",
        description="Watch training jobs on Cloud TPU VMs and triage what goes wrong.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except KeyboardInterrupt:
        return 130
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] == "tpuwatch":
            raise
        print(
            f"tpuwatch {args.command}: needs the package {exc.name!r}, which is not installed. "
            "The server, triage and demo commands need the server extra: pip install 'tpuwatch[server]'",
            file=sys.stderr,
        )
        return 2
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
