"""Protection that wraps every request: security headers, CSRF checks on form posts, and a
per-token rate limit. ``install(app, settings)`` adds the three middlewares in the right order."""

from __future__ import annotations

from fastapi import FastAPI

from app.settings import Settings


def install(app: FastAPI, settings: Settings) -> None:
    """Add the middlewares. Call it *before* adding the session middleware: Starlette puts the last
    added middleware outermost, and the CSRF check must see the decoded session."""
    from app.security.csrf import CSRFMiddleware
    from app.security.headers import SecurityHeadersMiddleware
    from app.security.ratelimit import RateLimitMiddleware

    app.add_middleware(CSRFMiddleware)
    if settings.rate_limit_per_second > 0:
        app.add_middleware(
            RateLimitMiddleware, rate=settings.rate_limit_per_second, burst=settings.rate_limit_burst
        )
    app.add_middleware(SecurityHeadersMiddleware)
