"""Every router, gathered: the one place that says which URLs the server has.

Each domain's ``routes.py`` exposes ``api`` (JSON under ``/api/v1`` or an ops endpoint) and/or
``pages`` (HTML); ``include_routers`` mounts them in this order.
"""

from __future__ import annotations

import importlib

from fastapi import FastAPI

# Domains with routes, in the order their routers are mounted.
DOMAINS = (
    "ops",
    "ingest",
    "jobs",
    "series",
    "metrics",
    "logs",
    "dashboard",
    "auth",
    "triage",
    "prometheus",
    "postmortem",
    "alerts",
    "goodput",
    "slice",
    "device",
    "compiles",
)


def include_routers(app: FastAPI) -> None:
    for domain in DOMAINS:
        routes = importlib.import_module(f"tpuwatch.server.{domain}.routes")
        for name in ("api", "pages"):
            router = getattr(routes, name, None)
            if router is not None:
                app.include_router(router)
    from starlette.routing import Route

    from tpuwatch.server.ingest.routes import ingest

    # Every host of every job calls this route, hundreds of times a second: matched first, as a
    # plain Starlette route (no dependency solving, no response model), it costs the event loop
    # less per batch. The FastAPI route stays for the OpenAPI schema; the answers are the same.
    app.router.routes.insert(0, Route("/api/v1/ingest", ingest, methods=["POST"], include_in_schema=False))
