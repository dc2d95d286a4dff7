"""``GET /api/v1/jobs/{id}/log``: the live log, and the fragment the job page polls to tail it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request

from tpuwatch.server.bounds import MAX_ID, HostQ, LineQ
from tpuwatch.server.deps import JobDep, PageJobDep, SessionDep, ViewerDep
from tpuwatch.server.logs.schemas import LogPage
from tpuwatch.server.logs.service import tail
from tpuwatch.server.web import render

api = APIRouter(prefix="/api/v1", tags=["logs"])
pages = APIRouter(tags=["pages"])

LevelQ = Annotated[Literal["", "error", "warning", "info"], Query()]
TextQ = Annotated[str, Query(max_length=200)]
AfterQ = LineQ
AroundQ = Annotated[int | None, Query(ge=1, le=MAX_ID)]
LimitQ = Annotated[int, Query(ge=1, le=5000)]


@dataclass
class LogQuery:
    """The filters both routes take; ``read`` applies them."""

    host: HostQ = None
    level: LevelQ = ""
    q: TextQ = ""
    after: AfterQ = None
    around: AroundQ = None
    limit: LimitQ = 500

    def read(self, session, job_id: int) -> LogPage:
        return tail(
            session,
            job_id,
            host=self.host,
            level=self.level or None,
            q=self.q or None,
            after=self.after,
            around=self.around,
            limit=self.limit,
        )


LogQueryDep = Annotated[LogQuery, Depends()]


@api.get("/jobs/{job_id}/log", response_model=LogPage)
def get_log(job: JobDep, session: SessionDep, query: LogQueryDep):
    """The job's output lines, newest ``limit`` (oldest first), filtered by host, level (``warning``
    keeps errors too) and text; ``after`` a line id for the new ones; ``around`` a line number of
    ``host`` for the lines a card links to."""
    return query.read(session, job.id)


@pages.get("/fragments/jobs/{job_id}/log")
def log_fragment(
    request: Request, job: PageJobDep, principal: ViewerDep, session: SessionDep, query: LogQueryDep
):
    """The log lines alone, as the job page shows them: what it fetches to tail the log."""
    context = {"log": query.read(session, job.id), "around": query.around, "after": query.after}
    return render(request, "jobs/_log_lines.html", context, principal=principal)
