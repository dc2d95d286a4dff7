"""Page rendering shared by every domain: one Jinja environment, filters for times and sizes."""

from __future__ import annotations

import datetime as dt
import time
from typing import Annotated, Literal

from fastapi import Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel

from app.settings import REPO_ROOT


def _ago(ts: float | None) -> str:
    if ts is None:
        return "never"
    s = max(0, int(time.time() - ts))
    if s < 60:
        return f"{s}s ago"
    if s < 3600:
        return f"{s // 60}m ago"
    if s < 86400:
        return f"{s // 3600}h {s % 3600 // 60}m ago"
    return f"{s // 86400}d ago"


def _when(ts: float | None) -> str:
    if ts is None:
        return "-"
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def _secs(v: float | None) -> str:
    if v is None:
        return "-"
    if v < 1:
        return f"{v * 1000:.1f} ms"
    return f"{v:.2f} s"


# Every page answers ``?format=json`` with the data it renders: its JSON twin.
FormatQ = Annotated[Literal["html", "json"], Query()]


def json_twin(data: BaseModel | dict) -> JSONResponse:
    """The JSON a page's ``?format=json`` answers with: the very models the page renders."""
    return JSONResponse(jsonable_encoder(data))


def make_templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=str(REPO_ROOT / "templates"))
    templates.env.filters.update(ago=_ago, when=_when, secs=_secs)
    return templates


def render(request: Request, name: str, context: dict, *, principal=None, status_code: int = 200):
    templates: Jinja2Templates = request.app.state.templates
    from app.security.csrf import csrf_token

    ctx = {
        "principal": principal,
        "settings": request.app.state.settings,
        "csrf_token": csrf_token(request),  # forms include _csrf.html, which renders it
        **context,
    }
    return templates.TemplateResponse(request, name, ctx, status_code=status_code)
