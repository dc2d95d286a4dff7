"""Is the database file whole? A check at start, damage noticed while serving, and what to do.

SQLite keeps everything in one file; a failing disk, a full disk during a write on some file
systems, or a copy taken without the WAL can leave pages damaged. Queries that meet a damaged page
fail ("database disk image is malformed"), others still work: without a check the server answers
some requests and 500s others, and ``/healthz`` stays green. So:

- at start, ``PRAGMA quick_check`` reads the whole file (seconds per GB; ``TPUWATCH_SQLITE_QUICK_CHECK``
  turns it off for very large files);
- while serving, an error that says the file is damaged is recognised wherever it comes from;

and either turns the server *degraded*: ``/healthz`` answers 503 with what happened and what to do,
every other request answers 503 with the same (agents retry a 503: their data stays spooled), and
nothing more is written to the damaged file.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass

log = logging.getLogger("tpuwatch.integrity")

DAMAGE = ("malformed", "not a database", "corrupt")
WHAT_TO_DO = (
    "Stop the server, move the damaged file aside (with its -wal and -shm files) and restore the "
    "last back-up (README, Operations: Back-ups), then start the server again; agents keep what the "
    "server has not stored in their spool and deliver it then. Without a back-up, "
    "`sqlite3 damaged.db .recover | sqlite3 tpuwatch.db` saves what can be read."
)


@dataclass
class DatabaseHealth:
    """What the server knows about its database file; ``problem`` is empty while it is whole."""

    url: str
    problem: str = ""

    @property
    def damaged(self) -> bool:
        return bool(self.problem)

    def mark_damaged(self, problem: str) -> bool:
        """Record the damage; True the first time (the caller says so, once)."""
        if self.problem:
            return False
        self.problem = problem
        return True

    def message(self) -> str:
        return (
            f"tpuwatch: the database {_path(self.url)} is damaged ({self.problem}). The server answers "
            f"503 until it is restored. {WHAT_TO_DO}"
        )

    def report(self) -> dict:
        """What ``/healthz`` shows anyone: the state, never the file's path (that goes to the log)."""
        if not self.damaged:
            return {"status": "ok"}
        return {"status": "degraded", "database": f"damaged: {self.problem}", "what_to_do": WHAT_TO_DO}

    def detail(self) -> str:
        return f"the database file is damaged ({self.problem}). {WHAT_TO_DO}"


OUTAGE_RETRY_S = 5


def _path(url: str) -> str:
    return url.split("///", 1)[-1] if url.startswith("sqlite") else url


def is_damage(exc: BaseException) -> bool:
    """An SQLite error that says the file itself is damaged (not a lock, not a bad query)."""
    orig = getattr(exc, "orig", exc)
    return isinstance(orig, sqlite3.DatabaseError) and any(m in str(orig).lower() for m in DAMAGE)


def quick_check(url: str) -> DatabaseHealth:
    """``PRAGMA quick_check`` on an SQLite file (other databases look after themselves: healthy)."""
    health = DatabaseHealth(url)
    path = _path(url)
    if not url.startswith("sqlite") or path in ("", ":memory:"):
        return health
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
    except sqlite3.OperationalError:
        return health  # no file yet: the migrations make it
    try:
        rows = con.execute("PRAGMA quick_check").fetchall()
        problems = [r[0] for r in rows if r[0] != "ok"]
        if problems:
            first = problems[0].replace("\n", " ").replace("*** in database main *** ", "")
            more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
            health.mark_damaged(f"PRAGMA quick_check: {first[:300]}{more}")
    except sqlite3.DatabaseError as exc:
        health.mark_damaged(f"PRAGMA quick_check: {exc}")
    finally:
        con.close()
    return health


def _answer(request, health: DatabaseHealth):
    from fastapi.responses import JSONResponse

    from tpuwatch.server.errors import wants_html

    if wants_html(request):
        from tpuwatch.server.web import render

        page = render(request, "error.html", {"status": 503, "detail": health.detail()}, status_code=503)
        page.headers["Retry-After"] = "60"
        return page
    return JSONResponse({"detail": health.detail()}, status_code=503, headers={"Retry-After": "60"})


class DegradedMiddleware:
    """While the database is known damaged, answer everything but ``/healthz`` and static files with
    503 and what to do, before any query runs."""

    EXEMPT = ("/healthz", "/static/")

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith(self.EXEMPT):
            health: DatabaseHealth | None = getattr(scope["app"].state, "db_health", None)
            if health is not None and health.damaged:
                from starlette.requests import Request

                await _answer(Request(scope, receive), health)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def install(app) -> None:
    """The degraded answer, and the handler that notices damage in any query's error."""
    from fastapi.responses import JSONResponse
    from sqlalchemy.exc import DatabaseError, InterfaceError, OperationalError

    async def database_error(request, exc: DatabaseError):
        health: DatabaseHealth = request.app.state.db_health
        if isinstance(exc, (OperationalError, InterfaceError)) and not is_damage(exc):
            # The server is down or unreachable (a PostgreSQL restart, a network cut): the agents keep
            # their batches and retry, pages say so; nothing is the client's fault.
            log.warning("database unavailable on %s %s: %s", request.method, request.url.path, exc)
            return JSONResponse(
                {"detail": "the database is unavailable: retry shortly"},
                status_code=503,
                headers={"Retry-After": str(OUTAGE_RETRY_S)},
            )
        if is_damage(exc):
            if health.mark_damaged(str(getattr(exc, "orig", exc))):
                log.error(health.message())
            return _answer(request, health)
        log.error("database error on %s %s", request.method, request.url.path, exc_info=exc)
        return JSONResponse({"detail": "the database refused the request (see the server's log)"}, 500)

    app.add_middleware(DegradedMiddleware)
    app.add_exception_handler(DatabaseError, database_error)
    app.add_exception_handler(InterfaceError, database_error)
