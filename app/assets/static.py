"""``/static/...``: the pages' CSS, scripts and plotly.js, in the smallest encoding the browser
takes, from ``compress.Precompressed``; the rest of the server's responses are compressed as they
go by Starlette's ``GZipMiddleware`` (which leaves these alone: they already say their encoding).
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

from fastapi import FastAPI
from starlette.middleware.gzip import GZipMiddleware
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.types import Receive, Scope, Send

from tpuwatch.server.assets.compress import Precompressed, accepted, default_cache_dir
from tpuwatch.server.resources import plotly_js_path, resource_dir

PLOTLY = "vendor/plotly.min.js"
LONG_CACHE = "public, max-age=86400"  # plotly.js changes only with the plotly package


class StaticFiles:
    """An ASGI app for the static folder and plotly.js, with content negotiation."""

    def __init__(self, store: Precompressed) -> None:
        self.root = resource_dir("static").resolve()
        self.store = store

    def sources(self) -> list[Path]:
        files = [p for p in self.root.rglob("*") if p.is_file() and p.suffix in (".js", ".css", ".svg")]
        return [*files, plotly_js_path()]

    def resolve(self, rel: str) -> Path | None:
        if rel == PLOTLY:
            return plotly_js_path()
        path = (self.root / rel).resolve()
        if not path.is_relative_to(self.root) or not path.is_file() or path.suffix == ".py":
            return None
        return path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = self.respond(scope)
        await response(scope, receive, send)

    def respond(self, scope: Scope) -> Response:
        if scope["method"] not in ("GET", "HEAD"):
            return PlainTextResponse("Method Not Allowed", status_code=405)
        rel = scope["path"][len(scope.get("root_path", "")) :].lstrip("/")
        rel = rel.removeprefix("static/")
        source = self.resolve(rel)
        if source is None:
            return PlainTextResponse("Not Found", status_code=404)
        media = mimetypes.guess_type(source.name)[0] or "application/octet-stream"
        if media.startswith("text/") or media.endswith("javascript"):
            media += "; charset=utf-8"
        headers = {"Vary": "Accept-Encoding"}
        if rel == PLOTLY:
            headers["Cache-Control"] = LONG_CACHE
        asked = dict(scope.get("headers") or []).get(b"accept-encoding", b"").decode("latin-1")
        for encoding in accepted(asked):
            copy = self.store.path(source, encoding)
            if copy is not None:
                headers["Content-Encoding"] = encoding
                return FileResponse(copy, media_type=media, headers=headers, stat_result=copy.stat())
        return FileResponse(source, media_type=media, headers=headers)


def install(app: FastAPI, cache: Path | None = None) -> Precompressed:
    """Mount ``/static`` and compress every other response that is worth it (JSON, pages,
    fragments). Returns the store; ``store.start(...)`` makes its copies (the app's lifespan)."""
    store = Precompressed(cache or default_cache_dir())
    static = StaticFiles(store)
    app.state.static_files = static
    app.mount("/static", static, name="static")
    # Level 6: a page or a chart's JSON costs a few ms, not tens (level 9 gains ~2% more).
    app.add_middleware(GZipMiddleware, minimum_size=1024, compresslevel=6)
    return store
