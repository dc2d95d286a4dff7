"""Triage for people (/triage: paste a log) and tools (POST /api/v1/triage)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request

from tpuwatch.server.deps import ReaderDep, SessionDep, ViewerDep
from tpuwatch.server.triage import service
from tpuwatch.server.triage.schemas import MAX_TRIAGE_CHARS, TriageRequest, TriageResult, UnknownGroups
from tpuwatch.server.web import FormatQ, json_twin, render

api = APIRouter(prefix="/api/v1", tags=["triage"])
pages = APIRouter(tags=["pages"])


@api.post("/triage", response_model=TriageResult)
def triage(body: TriageRequest, principal: ReaderDep):
    """Classify error output into cards (primary diagnosis first; none means unknown)."""
    return service.triage_text(body.text, body.context)


@api.get("/triage/unknown", response_model=UnknownGroups)
def unknown(principal: ReaderDep, session: SessionDep):
    """Recent errors no signature matched, grouped by mined template across jobs and hosts."""
    return service.unknown_groups(session, principal)


@pages.get("/triage")
def triage_page(request: Request, principal: ViewerDep, session: SessionDep, format: FormatQ = "html"):
    unknown = service.unknown_groups(session, principal)
    if format == "json":
        return json_twin({"unknown": unknown})
    ctx = {"text": "", "result": None, "unknown": unknown}
    return render(request, "triage/index.html", ctx, principal=principal)


@pages.post("/triage")
def triage_form(
    request: Request,
    principal: ViewerDep,
    session: SessionDep,
    text: Annotated[str, Form(max_length=MAX_TRIAGE_CHARS)] = "",
):
    result = service.triage_text(text) if text.strip() else None
    ctx = {"text": text, "result": result, "unknown": service.unknown_groups(session, principal)}
    return render(request, "triage/index.html", ctx, principal=principal)
