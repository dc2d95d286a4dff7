"""Where the server's files live: templates, static files and migrations are packages of their own
(``tpuwatch.server.templates``, ``.static``, ``.migrations``; see pyproject.toml), so an installed
wheel and a checkout find them the same way.

>>> (resource_dir("templates") / "base.html").is_file()
True
"""

from __future__ import annotations

import importlib
from pathlib import Path


def resource_dir(name: str) -> Path:
    """The folder of ``tpuwatch.server.<name>``: "templates", "static" or "migrations"."""
    module = importlib.import_module(f"tpuwatch.server.{name}")
    return Path(next(iter(module.__path__)))


def plotly_js_path() -> Path:
    """plotly.js as shipped inside the plotly package: served locally, never from a CDN."""
    import plotly

    return Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
