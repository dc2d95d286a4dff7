"""`tpuwatch token create`: make a project token from the command line."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("token", help="manage project tokens")
    tsub = p.add_subparsers(dest="token_command", metavar="ACTION")
    tsub.required = True
    c = tsub.add_parser(
        "create",
        help="create a token for a project (the token is printed on the last line)",
        description="Create a token for PROJECT (created if new). A plain token writes and reads "
        "its project; --read-only makes a viewer token, --ingest-only one for agents on shared VMs.",
    )
    c.add_argument("--project", required=True, help="project name, e.g. 'vision-team'")
    scope = c.add_mutually_exclusive_group()
    scope.add_argument("--read-only", action="store_true", help="can view, cannot write")
    scope.add_argument("--ingest-only", action="store_true", help="can write, cannot view")
    c.add_argument("--name", default="", help="a note to tell tokens apart")
    c.add_argument("--db", help="database URL (default: TPUWATCH_DB, else the embedded SQLite file)")
    c.set_defaults(func=_create)


def _create(args: argparse.Namespace) -> int:
    from app.db import make_engine, make_sessionmaker, transaction, upgrade
    from app.settings import Settings
    from app.tokens.service import create_token

    settings = Settings(db=args.db) if args.db else Settings()
    url = settings.database_url
    upgrade(url)
    scope = "read" if args.read_only else "ingest" if args.ingest_only else "full"
    engine = make_engine(url)
    try:
        with transaction(make_sessionmaker(engine)) as session:
            token = create_token(session, args.project, scope=scope, name=args.name)
    finally:
        engine.dispose()
    print(f"Created a {scope} token for project {args.project!r}. It is shown only once:")
    print(token)
    return 0
