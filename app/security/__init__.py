"""Protection that wraps every request: security headers, a per-token rate limit, the front door
(token before body, a deadline for the body) and, inside the gates, CSRF checks on form posts.
``install(app, settings)`` adds the first three, ``install_csrf(app)`` the last."""

from __future__ import annotations

from fastapi import FastAPI

from tpuwatch.server.settings import Settings


def install(app: FastAPI, settings: Settings) -> None:
    """Add the middlewares. Call it *before* adding the session middleware: Starlette puts the last
    added middleware outermost, and the CSRF check must see the decoded session."""
    from tpuwatch.server.security.frontdoor import FrontDoor
    from tpuwatch.server.security.headers import SecurityHeadersMiddleware
    from tpuwatch.server.security.ratelimit import RateLimitMiddleware
    from tpuwatch.server.security.tokencache import TokenCache

    app.state.token_cache = TokenCache()
    app.add_middleware(FrontDoor, settings=settings, tokens=app.state.token_cache)  # outside the gates
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


def install_csrf(app: FastAPI) -> None:
    """The CSRF check, added before the gates: it runs inside them, on a body the front door has
    already read whole (within its deadline and the form's small limit)."""
    from tpuwatch.server.security.csrf import CSRFMiddleware

    app.add_middleware(CSRFMiddleware)


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
