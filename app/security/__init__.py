"""Protection that wraps every request: security headers, CSRF checks on form posts, and a
per-token rate limit. ``install(app, settings)`` adds the three middlewares in the right order."""

from __future__ import annotations

from fastapi import FastAPI

from tpuwatch.server.settings import Settings


def install(app: FastAPI, settings: Settings) -> None:
    """Add the middlewares. Call it *before* adding the session middleware: Starlette puts the last
    added middleware outermost, and the CSRF check must see the decoded session."""
    from tpuwatch.server.security.csrf import CSRFMiddleware
    from tpuwatch.server.security.headers import SecurityHeadersMiddleware
    from tpuwatch.server.security.ratelimit import RateLimitMiddleware

    app.add_middleware(CSRFMiddleware)
    if settings.rate_limit_per_second > 0:
        app.add_middleware(
            RateLimitMiddleware,
            rate=settings.rate_limit_per_second,
            burst=settings.rate_limit_burst,
            token_rate=settings.rate_limit_token_per_second,
            token_burst=settings.rate_limit_token_burst,
        )
    app.add_middleware(SecurityHeadersMiddleware)
    _out_of_range_is_a_client_error(app)


def _out_of_range_is_a_client_error(app: FastAPI) -> None:
    """A number too large for the database column (an id beyond 64 bits in a path or a body) is the
    client's mistake: answer 422, not 500. The request's transaction has been rolled back by then."""
    from fastapi.responses import JSONResponse
    from sqlalchemy.exc import DataError

    async def out_of_range(request, exc):
        return JSONResponse(
            {"detail": "a value in the request does not fit (a number too large or a text too long)"},
            status_code=422,
        )

    app.add_exception_handler(OverflowError, out_of_range)
    app.add_exception_handler(DataError, out_of_range)
