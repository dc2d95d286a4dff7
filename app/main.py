"""The FastAPI application. ``create_app(settings)`` builds everything; importing builds nothing.

Run it with `tpuwatch server`, or ``uvicorn --factory tpuwatch.server.main:create_app``.
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI, Request
from fastapi.responses import RedirectResponse
from starlette.middleware.sessions import SessionMiddleware

from tpuwatch.server.api import include_routers
from tpuwatch.server.db import make_engine, make_sessionmaker
from tpuwatch.server.deps import LoginRequired
from tpuwatch.server.errors import install as install_errors
from tpuwatch.server.ingest.writer import Writer
from tpuwatch.server.settings import Settings
from tpuwatch.server.web import make_templates

SESSION_COOKIE = "tpuwatch_session"


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        from tpuwatch.server.ops.integrity import DatabaseHealth, quick_check

        url = settings.database_url
        app.state.db_health = quick_check(url) if settings.sqlite_quick_check else DatabaseHealth(url)
        if app.state.db_health.damaged:
            logging.getLogger("tpuwatch.integrity").error(app.state.db_health.message())
        from tpuwatch.server.ops.admission import size_thread_pool

        size_thread_pool(settings)
        engine = make_engine(url, settings.db_pool_size, settings.db_max_overflow, settings.db_pool_timeout)
        app.state.engine = engine
        app.state.sessions = make_sessionmaker(engine)
        app.state.ingest_threads = anyio.CapacityLimiter(settings.ingest_threads)
        from tpuwatch.server.device.asks import AskBoard

        app.state.device_asks = AskBoard(app.state.sessions)
        pacing = getattr(app.state, "pacing", None)
        writers = 1 if engine.dialect.name == "sqlite" else settings.ingest_writers  # SQLite: one writer
        app.state.writer = Writer(
            app.state.sessions,
            pacing.spent if pacing else None,
            threads=writers,
            wait=pacing.group_wait if pacing else None,
        ).start()
        from tpuwatch.server.alerts.loop import start_alert_loop

        app.state.precompress = app.state.static_store.start(app.state.static_files.sources())
        run_alerts = settings.alerts_enabled and not app.state.db_health.damaged
        alerts = start_alert_loop(app) if run_alerts else None
        try:
            yield
        finally:
            if alerts is not None:
                alerts.stop(timeout=3.0)  # a stop under load must not wait out a slow pass
            app.state.writer.stop(timeout=3.0)
            engine.dispose()

    app = FastAPI(
        title="tpuwatch",
        version="0.1.0",
        description="Training-job monitor and triage for Cloud TPU VMs.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.templates = make_templates()
    from tpuwatch.server.ops.integrity import install as install_integrity

    install_integrity(app)  # first added, innermost: it answers before any route touches the database
    from tpuwatch.server.security import install_csrf

    install_csrf(app)  # inside the gates, on a body read already (the front door)
    from tpuwatch.server.ops.admission import install as install_admission

    # Inside the rate limit and the front door: a throttled request, an unknown token or a body
    # still on its way takes no slot.
    install_admission(app, settings)
    from tpuwatch.server.auth.throttle import AuthThrottle
    from tpuwatch.server.security import install as install_security
    from tpuwatch.server.security.cookies import SecureCookieMiddleware

    app.state.auth_throttle = AuthThrottle(settings.auth_failures_per_minute, settings.auth_failure_burst)
    install_security(app, settings)  # before the session middleware: it must sit inside it
    # The cookie carries a random session id (auth/service.py); the server keeps the session.
    app.add_middleware(
        SessionMiddleware,
        secret_key=settings.resolved_secret_key(),
        same_site="strict",
        session_cookie=SESSION_COOKIE,
        max_age=int(settings.session_max_seconds),
        https_only=settings.secure_cookies,
    )
    app.add_middleware(SecureCookieMiddleware, cookie=SESSION_COOKIE)

    install_errors(app)

    @app.exception_handler(LoginRequired)
    async def _to_login(request: Request, exc: LoginRequired):
        return RedirectResponse(f"/login?next={request.url.path}", status_code=303)

    include_routers(app)
    from tpuwatch.server.assets.static import install as install_assets

    app.state.static_store = install_assets(app, settings.asset_cache_dir)  # outermost: compresses all
    return app
