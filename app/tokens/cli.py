"""`tpuwatch token create | list | revoke`: project tokens from the command line."""

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
    ls = tsub.add_parser("list", help="list tokens (never their text) with their live page sessions")
    ls.add_argument("--project", help="only this project's tokens")
    ls.add_argument("--db", help="database URL (default: TPUWATCH_DB, else the embedded SQLite file)")
    ls.set_defaults(func=_list)
    rv = tsub.add_parser(
        "revoke",
        help="revoke a token and end every page session made with it",
        description="Revoke token ID (see `tpuwatch token list`): the API refuses it from now on and "
        "every page session logged in with it ends.",
    )
    rv.add_argument("id", type=int, help="the token's id")
    rv.add_argument("--db", help="database URL (default: TPUWATCH_DB, else the embedded SQLite file)")
    rv.set_defaults(func=_revoke)


def _open(args: argparse.Namespace):
    from tpuwatch.server.db import make_engine, make_sessionmaker, upgrade
    from tpuwatch.server.settings import Settings

    settings = Settings(db=args.db) if args.db else Settings()
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    return engine, make_sessionmaker(engine)


def _list(args: argparse.Namespace) -> int:
    from tpuwatch.server.db import transaction
    from tpuwatch.server.tokens.service import list_tokens

    engine, factory = _open(args)
    try:
        with transaction(factory) as session:
            rows = list_tokens(session, args.project)
    finally:
        engine.dispose()
    for t in rows:
        state = "revoked" if t["revoked_at"] else f"{t['sessions']} session(s)"
        print(f"{t['id']}\t{t['project']}\t{t['scope']}\t{t['prefix']}…\t{state}\t{t['name']}")
    return 0


def _revoke(args: argparse.Namespace) -> int:
    from tpuwatch.server.db import transaction
    from tpuwatch.server.errors import NotFound
    from tpuwatch.server.tokens.service import revoke_token

    engine, factory = _open(args)
    try:
        with transaction(factory) as session:
            ended = revoke_token(session, args.id)
    except NotFound as exc:
        print(f"tpuwatch token revoke: {exc}")
        return 1
    finally:
        engine.dispose()
    print(f"token {args.id} revoked; ended {ended} page session(s)")
    return 0


def _create(args: argparse.Namespace) -> int:
    from tpuwatch.server.db import transaction
    from tpuwatch.server.tokens.service import create_token

    scope = "read" if args.read_only else "ingest" if args.ingest_only else "full"
    engine, factory = _open(args)
    where = engine.url.render_as_string(hide_password=True)
    try:
        with transaction(factory) as session:
            token = create_token(session, args.project, scope=scope, name=args.name)
    finally:
        engine.dispose()
    # Which database: a server on another one (a running `tpuwatch demo` has its own) refuses it.
    print(f"Created a {scope} token for project {args.project!r} in {where}")
    print("(a server using another database will answer 401: pass that server's --db). Shown only once:")
    print(token)
    return 0
