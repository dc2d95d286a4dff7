"""The live log: each host's output lines, stored as they arrive (bulk, with a level read from
the line), tailed, filtered by host, level and text, and pruned after a retention period.

Lines are shown escaped, always (the templates' autoescape; the API returns them as JSON text).
"""

from __future__ import annotations

import re
import time

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from tpuwatch.server.db import bulk_insert
from tpuwatch.server.logs.schemas import LogLineOut, LogPage
from tpuwatch.server.models import JobHost, LogLine

COLUMNS = ("job_id", "host_index", "line_no", "ts", "stream", "level", "text")
LEVELS = ("error", "warning", "info")
_ERROR = re.compile(
    r"^(?:[EF]\d{4} |Traceback \(most recent call last\)|\S*(?:Error|Exception)\b[:\s]"
    r"|.*\b(?:ERROR|FATAL|CRITICAL)\b)"
)
_WARNING = re.compile(r"^(?:W\d{4} |.*\b(?:WARNING|WARN)\b|\S*Warning\b)")
_AROUND = 50  # lines each side of a line a card links to
SEARCH_WINDOW = 100_000  # newest lines of a job a text search reads


def level_of(text: str) -> str:
    """``error``, ``warning`` or ``info`` from how the line reads (glog prefix, traceback, words).

    >>> level_of("E1123 12:00:00.1 tpu.cc] boom"), level_of("W0000 warn"), level_of("step 3 loss 0.2")
    ('error', 'warning', 'info')
    >>> level_of("ValueError: bad shape"), level_of("UserWarning: shuffle ignored")
    ('error', 'warning')
    """
    if _ERROR.match(text):
        return "error"
    if _WARNING.match(text):
        return "warning"
    return "info"


def store_lines(session: Session, job_id: int, host: int, rows: list) -> None:
    """Append a batch's log rows ``[ts, line, stream, text]`` for one host."""
    bulk_insert(
        session,
        "log_lines",
        COLUMNS,
        [(job_id, host, n, ts, stream, level_of(text), text) for ts, n, stream, text in rows],
    )


def tail(
    session: Session,
    job_id: int,
    *,
    host: int | None = None,
    level: str | None = None,
    q: str | None = None,
    after: int | None = None,
    around: int | None = None,
    limit: int = 500,
) -> LogPage:
    """The newest ``limit`` lines matching the filters (after line id ``after`` when given), or
    the lines around line number ``around`` of ``host`` (what a card links to)."""
    # The job's hosts, not a DISTINCT over its lines: that reads every line of a long log.
    hosts = list(
        session.scalars(
            select(JobHost.host_index).where(JobHost.job_id == job_id).order_by(JobHost.host_index)
        )
    )
    stmt = select(LogLine).where(LogLine.job_id == job_id)
    if host is not None:
        stmt = stmt.where(LogLine.host_index == host)
    if around is not None:
        stmt = stmt.where(LogLine.line_no.between(around - _AROUND, around + _AROUND)).order_by(
            LogLine.line_no
        )
        rows = list(session.scalars(stmt.limit(2 * _AROUND + 1)))
        return _page(job_id, hosts, rows, False)
    # Each level on its own reads its index (job_id, level, id) newest first; an IN of two levels
    # would not, and reads every line of the job.
    levels = {"error": ("error",), "warning": ("error", "warning")}.get(level or "", ())
    searched = None
    if q:
        escaped = q.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        stmt = stmt.where(LogLine.text.ilike(f"%{escaped}%", escape="\\"))
        # A text search reads the newest SEARCH_WINDOW lines of the job, not a million: the
        # archived log (and `grep`) has the rest.
        floor = session.scalar(
            select(LogLine.id)
            .where(LogLine.job_id == job_id)
            .order_by(LogLine.id.desc())
            .offset(SEARCH_WINDOW)
            .limit(1)
        )
        if floor is not None:
            stmt = stmt.where(LogLine.id > floor)
            searched = SEARCH_WINDOW
    if after is not None:
        stmt = stmt.where(LogLine.id > after)
    if levels:
        rows = [
            r
            for lv in levels
            for r in session.scalars(
                stmt.where(LogLine.level == lv).order_by(LogLine.id.desc()).limit(limit + 1)
            )
        ]
        rows = sorted(rows, key=lambda r: r.id, reverse=True)[: limit + 1]
    else:
        rows = list(session.scalars(stmt.order_by(LogLine.id.desc()).limit(limit + 1)))
    truncated = len(rows) > limit
    page = _page(job_id, hosts, rows[:limit][::-1], truncated)
    page.searched_lines = searched
    return page


def _page(job_id: int, hosts: list[int], rows: list[LogLine], truncated: bool) -> LogPage:
    lines = [
        LogLineOut(
            id=r.id, host=r.host_index, line=r.line_no, ts=r.ts, stream=r.stream, level=r.level, text=r.text
        )
        for r in rows
    ]
    return LogPage(
        job_id=job_id,
        hosts=hosts,
        lines=lines,
        last_id=max((ln.id for ln in lines), default=None),
        truncated=truncated,
    )


def prune(session: Session, older_than_days: float, now: float | None = None) -> int:
    """Delete log lines older than ``older_than_days``; returns how many went. The archived log
    (GCS, the agent's spool folder) keeps the whole output."""
    if older_than_days < 0:
        raise ValueError("older_than_days must be zero or more")
    cutoff = (now if now is not None else time.time()) - older_than_days * 86400
    result = session.execute(delete(LogLine).where(LogLine.ts < cutoff))
    return result.rowcount or 0
