"""Domain errors: what services raise, and the one place that turns them into HTTP.

Services do not know about HTTP: they raise ``NotFound``, ``Conflict``, ``Forbidden`` or
``Invalid`` with a sentence for the person reading it; a route, a CLI command and the alert loop
all call the same service. ``install(app)`` answers an API request with ``{"detail": ...}`` and
the error's status, and a page request with the error page.

>>> str(NotFound("no job 7 in this project"))
'no job 7 in this project'
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException


class DomainError(Exception):
    """A request that cannot be done as asked. ``status_code`` is what HTTP callers see."""

    status_code = 400

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class NotFound(DomainError):
    status_code = 404


class Forbidden(DomainError):
    status_code = 403


class Conflict(DomainError):
    status_code = 409


class Invalid(DomainError):
    status_code = 422


def wants_html(request: Request) -> bool:
    """A person's browser asking for a page, not a client of the JSON API."""
    if request.url.path.startswith("/api/") or request.query_params.get("format") == "json":
        return False
    return "text/html" in request.headers.get("accept", "")


def install(app: FastAPI) -> None:
    async def domain_error(request: Request, exc: DomainError):
        if wants_html(request):
            return _page(request, exc.status_code, exc.detail)
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code)

    async def http_error(request: Request, exc: StarletteHTTPException):
        # Unknown URLs and the like: a page for a browser, FastAPI's usual JSON for everyone else.
        if wants_html(request) and exc.status_code in (404, 405):
            return _page(request, exc.status_code, "There is no page at this address.")
        return await http_exception_handler(request, exc)

    app.add_exception_handler(DomainError, domain_error)
    app.add_exception_handler(StarletteHTTPException, http_error)


def _page(request: Request, status: int, detail: str):
    from tpuwatch.server.web import render

    return render(request, "error.html", {"status": status, "detail": detail}, status_code=status)
