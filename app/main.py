"""The FastAPI application. ``create_app(settings)`` builds everything; importing builds nothing.

Run it with `tpuwatch server`, or ``uvicorn --factory app.main:create_app``.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.middleware.sessions import SessionMiddleware

from app.db import make_engine, make_sessionmaker
from app.deps import LoginRequired
from app.settings import REPO_ROOT, Settings
from app.web import make_templates


def plotly_js_path() -> Path:
    """plotly.js as shipped inside the plotly package: served locally, never from a CDN."""
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        engine = make_engine(settings.database_url)
        app.state.engine = engine
        app.state.sessions = make_sessionmaker(engine)
        from app.alerts.loop import start_alert_loop

        alerts = start_alert_loop(app) if settings.alerts_enabled else None
        try:
            yield
        finally:
            if alerts is not None:
                alerts.stop()
            engine.dispose()

    app = FastAPI(
        title="tpuwatch",
        version="0.1.0",
        description="Training-job monitor and triage for Cloud TPU VMs.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.templates = make_templates()
    from app.security import install as install_security

    install_security(app, settings)  # before the session middleware: it must sit inside it
    app.add_middleware(
        SessionMiddleware,
        secret_key=settings.resolved_secret_key(),
        same_site="strict",
        session_cookie="tpuwatch_session",
        https_only=False,
    )

    @app.exception_handler(LoginRequired)
    async def _to_login(request: Request, exc: LoginRequired):
        return RedirectResponse(f"/login?next={request.url.path}", status_code=303)

    @app.get("/healthz", tags=["ops"])
    def healthz():
        return JSONResponse({"status": "ok"})

    @app.get("/static/vendor/plotly.min.js", include_in_schema=False)
    def plotly_js():
        return FileResponse(
            plotly_js_path(), media_type="text/javascript", headers={"Cache-Control": "public, max-age=86400"}
        )

    from app.auth.routes import router as auth_router
    from app.ingest.routes import router as ingest_router
    from app.jobs.routes import api as jobs_api
    from app.jobs.routes import pages as jobs_pages
    from app.metrics.routes import router as metrics_router
    from app.triage.routes import api as triage_api
    from app.triage.routes import pages as triage_pages

    for router in (ingest_router, jobs_api, auth_router, jobs_pages, triage_api, triage_pages):
        app.include_router(router)
    app.include_router(metrics_router)
    from app.jobs.metrics_routes import router as job_metrics_router

    app.include_router(job_metrics_router)
    from app.postmortem.routes import api as postmortem_api
    from app.postmortem.routes import pages as postmortem_pages

    app.include_router(postmortem_api)
    app.include_router(postmortem_pages)
    from app.alerts.routes import api as alerts_api
    from app.alerts.routes import pages as alerts_pages

    app.include_router(alerts_api)
    app.include_router(alerts_pages)
    app.mount("/static", StaticFiles(directory=str(REPO_ROOT / "static")), name="static")
    return app
