"""Triage for people (/triage: paste a log) and tools (POST /api/v1/triage)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request

from app.deps import ReaderDep, ViewerDep
from app.triage import service
from app.triage.schemas import MAX_TRIAGE_CHARS, TriageRequest, TriageResult
from app.web import render

api = APIRouter(prefix="/api/v1", tags=["triage"])
pages = APIRouter(tags=["pages"])


@api.post("/triage", response_model=TriageResult)
def triage(body: TriageRequest, principal: ReaderDep):
    """Classify error output into cards (primary diagnosis first; none means unknown)."""
    return service.triage_text(body.text, body.context)


@pages.get("/triage")
def triage_page(request: Request, principal: ViewerDep):
    return render(request, "triage/index.html", {"text": "", "result": None}, principal=principal)


@pages.post("/triage")
def triage_form(
    request: Request, principal: ViewerDep, text: Annotated[str, Form(max_length=MAX_TRIAGE_CHARS)] = ""
):
    result = service.triage_text(text) if text.strip() else None
    return render(request, "triage/index.html", {"text": text, "result": result}, principal=principal)
