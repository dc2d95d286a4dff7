"""`tpuwatch alerts channel add|list|remove`: where a project's alerts go."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("alerts", help="manage alert channels (webhooks, email)")
    asub = p.add_subparsers(dest="alerts_command", metavar="ACTION")
    asub.required = True
    ch = asub.add_parser("channel", help="a project's alert channels")
    csub = ch.add_subparsers(dest="channel_command", metavar="ACTION")
    csub.required = True

    add = csub.add_parser(
        "add",
        help="send a project's alerts to a webhook or an email address",
        description="Alerts of PROJECT (firing, repeat, resolved) go to this channel as well as to the "
        "server-wide TPUWATCH_ALERT_WEBHOOK_URL / TPUWATCH_ALERT_EMAIL_TO.",
    )
    add.add_argument("--project", required=True, help="project name")
    target = add.add_mutually_exclusive_group(required=True)
    target.add_argument("--webhook", metavar="URL", help="a Slack-compatible incoming webhook URL")
    target.add_argument("--email", metavar="ADDR", help="an email address (needs TPUWATCH_SMTP_HOST)")
    _db(add)
    add.set_defaults(func=_add)

    ls = csub.add_parser("list", help="list channels")
    ls.add_argument("--project", help="only this project")
    _db(ls)
    ls.set_defaults(func=_list)

    rm = csub.add_parser("remove", help="remove a channel by its id (see `list`)")
    rm.add_argument("channel_id", type=int)
    _db(rm)
    rm.set_defaults(func=_remove)


def _db(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", help="database URL (default: TPUWATCH_DB, else the embedded SQLite file)")


def _sessions(args):
    from tpuwatch.server.db import make_engine, make_sessionmaker, upgrade
    from tpuwatch.server.settings import Settings

    settings = Settings(db=args.db) if args.db else Settings()
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    return engine, make_sessionmaker(engine)


def _add(args: argparse.Namespace) -> int:
    from tpuwatch.server.alerts.egress import EgressPolicy
    from tpuwatch.server.alerts.service import add_channel
    from tpuwatch.server.db import transaction
    from tpuwatch.server.settings import Settings
    from tpuwatch.server.tokens.service import get_or_create_project

    kind, target = ("webhook", args.webhook) if args.webhook else ("email", args.email)
    engine, factory = _sessions(args)
    try:
        with transaction(factory) as s:
            policy = EgressPolicy.from_settings(Settings())
            channel = add_channel(s, get_or_create_project(s, args.project), kind, target, policy)
            channel_id = channel.id
    except ValueError as exc:
        print(f"tpuwatch alerts: {exc}")
        return 2
    finally:
        engine.dispose()
    print(f"channel {channel_id}: {kind} for project {args.project!r}")
    return 0


def _list(args: argparse.Namespace) -> int:
    from tpuwatch.server.alerts.service import list_channels
    from tpuwatch.server.db import transaction

    engine, factory = _sessions(args)
    try:
        with transaction(factory) as s:
            channels = list_channels(s, None, args.project).channels
    finally:
        engine.dispose()
    if not channels:
        print("no channels")
    for c in channels:
        print(f"{c.id}\t{c.project}\t{c.kind}\t{c.target}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    from tpuwatch.server.alerts.service import remove_channel
    from tpuwatch.server.db import transaction

    engine, factory = _sessions(args)
    try:
        with transaction(factory) as s:
            removed = remove_channel(s, None, args.channel_id)
    finally:
        engine.dispose()
    if not removed:
        print(f"no channel {args.channel_id}")
        return 1
    print(f"removed channel {args.channel_id}")
    return 0
