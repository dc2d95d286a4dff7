"""Page rendering shared by every domain: one Jinja environment, filters for times and sizes."""

from __future__ import annotations

import datetime as dt
import math
import time
from typing import Annotated, Literal

from fastapi import Query, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse
from fastapi.templating import Jinja2Templates
from markupsafe import Markup
from pydantic import BaseModel

from tpuwatch.server.resources import resource_dir

OUT_OF_RANGE = "out of range"


def utc(ts: float | None, fmt: str = "%Y-%m-%d %H:%M:%S") -> str | None:
    """``ts`` as UTC text, or None when no calendar can show it (stored before ingest had bounds).

    >>> utc(0.0), utc(-1e12), utc(float("nan"))
    ('1970-01-01 00:00:00', None, None)
    """
    if ts is None or not math.isfinite(ts):
        return None
    try:
        return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime(fmt)
    except (ValueError, OverflowError, OSError):
        return None


def _ago(ts: float | None) -> str:
    if ts is None:
        return "never"
    if not math.isfinite(ts):
        return OUT_OF_RANGE
    s = max(0, int(time.time() - ts))
    if s < 60:
        return f"{s}s ago"
    if s < 3600:
        return f"{s // 60}m ago"
    if s < 86400:
        return f"{s // 3600}h {s % 3600 // 60}m ago"
    return f"{s // 86400}d ago"


def _when(ts: float | None) -> str:
    """Filters never raise on stored data: a page must not fail for everyone over one value."""
    if ts is None:
        return "-"
    text = utc(ts)
    return f"{text} UTC" if text else f"{OUT_OF_RANGE} ({ts:.6g})"


def secs(v: float | None) -> str:
    """Seconds as a person reads them.

    >>> secs(0.0071), secs(2.5)
    ('7.1 ms', '2.50 s')
    """
    if v is None:
        return "-"
    if not math.isfinite(v):
        return OUT_OF_RANGE
    if v < 1:
        return f"{v * 1000:.1f} ms"
    return f"{v:.2f} s"


def duration(v: float | None) -> str:
    """A span of time as a person says it.

    >>> duration(42), duration(3725), duration(90061)
    ('42 s', '1 h 2 min', '1 d 1 h')
    """
    if v is None or not math.isfinite(v) or v < 0:
        return "-"
    s = int(v)
    if s < 120:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    if s < 86400:
        return f"{s // 3600} h {s % 3600 // 60} min"
    return f"{s // 86400} d {s % 86400 // 3600} h"


def _bidi(value) -> Markup:
    """User text (a job, project or host name, a log line) in ``<bdi>``: whatever direction it takes,
    a right-to-left override in it cannot flip the page's own labels around it.

    >>> str(_bidi("\u202eevil<b>"))
    '<bdi>\u202eevil&lt;b&gt;</bdi>'
    """
    return Markup("<bdi>%s</bdi>") % ("" if value is None else value)


def _bidi_text(value) -> str:
    """The same for places that hold text only (``<title>``): first-strong isolate ... pop."""
    return "\u2068" + ("" if value is None else str(value)) + "\u2069"


# Every page answers ``?format=json`` with the data it renders: its JSON twin.
FormatQ = Annotated[Literal["html", "json"], Query()]


def json_twin(data: BaseModel | dict) -> JSONResponse:
    """The JSON a page's ``?format=json`` answers with: the very models the page renders."""
    return JSONResponse(jsonable_encoder(data))


def make_templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=str(resource_dir("templates")))
    templates.env.filters.update(
        ago=_ago, when=_when, secs=secs, duration=duration, bidi=_bidi, bidi_text=_bidi_text
    )
    return templates


def render(request: Request, name: str, context: dict, *, principal=None, status_code: int = 200):
    templates: Jinja2Templates = request.app.state.templates
    from tpuwatch.server.security.csrf import csrf_token

    ctx = {
        "principal": principal,
        "settings": request.app.state.settings,
        "csrf_token": csrf_token(request),  # forms include _csrf.html, which renders it
        **context,
    }
    return templates.TemplateResponse(request, name, ctx, status_code=status_code)
