"""`tpuwatch server`, `tpuwatch db upgrade` and `tpuwatch db prune`."""

from __future__ import annotations

import argparse
import os


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "server",
        help="run the tpuwatch server",
        description="Serve the API and the pages. Applies database migrations first. The database is "
        "--db, else TPUWATCH_DB, else an SQLite file in the user's data directory.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--db", help="database URL, e.g. postgresql+psycopg://user@host/tpuwatch")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument(
        "--open",
        action="store_true",
        help="let anyone view the pages without logging in (only on a trusted network)",
    )
    p.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    p.set_defaults(func=_serve)

    db = sub.add_parser("db", help="database maintenance")
    dsub = db.add_subparsers(dest="db_command", metavar="ACTION")
    dsub.required = True
    up = dsub.add_parser("upgrade", help="apply pending migrations")
    up.add_argument("--db", help="database URL (default: TPUWATCH_DB or the embedded SQLite file)")
    up.set_defaults(func=_upgrade)
    prune = dsub.add_parser(
        "prune",
        help="delete old raw steps (their rollups stay, so charts of the whole run still draw)",
        description="Delete raw step rows that ended more than DAYS ago. Each job's rollups are checked "
        "first and rebuilt from its raw steps when incomplete; rollups are never deleted.",
    )
    prune.add_argument("--raw-older-than", type=float, required=True, metavar="DAYS", help="age in days")
    prune.add_argument("--db", help="database URL (default: TPUWATCH_DB or the embedded SQLite file)")
    prune.set_defaults(func=_prune)


def _settings(args):
    from tpuwatch.server.settings import Settings

    return Settings(db=args.db) if getattr(args, "db", None) else Settings()


def _upgrade(args: argparse.Namespace) -> int:
    from tpuwatch.server.db import upgrade

    settings = _settings(args)
    upgrade(settings.database_url)
    print(f"database is up to date: {_redact(settings.database_url)}")
    return 0


def _prune(args: argparse.Namespace) -> int:
    from tpuwatch.server.db import make_engine, make_sessionmaker, transaction, upgrade
    from tpuwatch.server.device.store import prune as prune_device_rounds
    from tpuwatch.server.ingest import keys
    from tpuwatch.server.logs.service import prune as prune_log_lines
    from tpuwatch.server.series.rollups import prune_raw_steps

    if args.raw_older_than < 0:
        print("tpuwatch db prune: --raw-older-than must be zero or more days")
        return 2
    settings = _settings(args)
    upgrade(settings.database_url)
    engine = make_engine(settings.database_url)
    try:
        with transaction(make_sessionmaker(engine)) as session:
            done = prune_raw_steps(session, args.raw_older_than)
            lines = prune_log_lines(session, args.raw_older_than)  # the live log: raw data too
            rounds = prune_device_rounds(session, args.raw_older_than)  # libtpu's metrics too
        gone = keys.prune_past_window(
            make_sessionmaker(engine), settings.ingest_max_age_days, settings.ingest_max_ahead_seconds, 1e9
        )
    finally:
        engine.dispose()
    print(
        f"pruned {done['deleted']} raw steps older than {args.raw_older_than:g} days from {done['jobs']} "
        f"job(s) ({done['partitions']} day partition(s) dropped); "
        f"rollups rebuilt first for {done['rebuilt']}; {lines} live-log lines; {rounds} device rounds; "
        f"{gone} batch-key rows past the ingest window"
    )
    return 0


def _serve(args: argparse.Namespace) -> int:
    import sys

    import uvicorn

    from tpuwatch.server.db import upgrade
    from tpuwatch.server.ops.integrity import quick_check

    settings = _settings(args)
    health = quick_check(settings.database_url) if settings.sqlite_quick_check else None
    if health is not None and health.damaged:
        # Start anyway, degraded: /healthz and every request say what happened and what to do.
        print(health.message(), file=sys.stderr, flush=True)
    else:
        upgrade(settings.database_url)
    # Worker processes build their own app from the environment: pass the choices on through it.
    os.environ["TPUWATCH_DB"] = settings.database_url
    os.environ["TPUWATCH_SECRET_KEY"] = settings.resolved_secret_key()
    if args.open:
        os.environ["TPUWATCH_OPEN_ACCESS"] = "true"
    if args.workers > 1:
        # The worker processes share one listening socket, and uvloop (libuv) accepts every
        # connection waiting when a process wakes: a 4,096-host job connecting at once went 2,542
        # to one process and 1,554 to the other, and the busier one asked its hosts for twice the
        # interval (app/ops/pacing.py paces per process). With libuv's single-accept switch a
        # process takes one connection and yields, and the hosts split about evenly (2,117 / 1,979).
        os.environ.setdefault("UV_TCP_SINGLE_ACCEPT", "1")
    print(
        f"tpuwatch server on http://{args.host}:{args.port}/  database: {_redact(settings.database_url)}",
        flush=True,
    )
    uvicorn.run(
        "tpuwatch.server.main:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=args.log_level,
        **uvicorn_options(settings),
    )
    return 0


def uvicorn_options(settings) -> dict:
    """How `tpuwatch server` runs uvicorn: the front door's connection limits (security/connections.py;
    worker processes read them from the environment), X-Forwarded-For believed only from the proxies
    named in TPUWATCH_FORWARDED_ALLOW_IPS (none by default: the throttles key on the address)."""
    from tpuwatch.server.security.connections import GuardedProtocol

    proxies = settings.forwarded_allow_ips.strip()
    return dict(
        http=GuardedProtocol,
        proxy_headers=bool(proxies),
        forwarded_allow_ips=proxies or None,
        server_header=False,
        # Under any load SIGTERM stops the server within seconds: requests still running then are
        # cut off (agents keep their batches and send them again), never waited on for ever.
        timeout_graceful_shutdown=max(1, round(settings.graceful_shutdown_seconds)),
        limit_concurrency=settings.max_connections,
        timeout_keep_alive=max(1, round(settings.keep_alive_seconds)),
    )


def _redact(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
