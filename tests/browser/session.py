"""What browser tests do before looking at a page: a project token, and a logged-in page."""

from __future__ import annotations

from tests.conftest import make_token
from tpuwatch.server.db import make_engine, make_sessionmaker


def token_for(server, project: str) -> str:
    """A new project token in the live server's database."""
    engine = make_engine(server.settings.database_url)
    token = make_token(make_sessionmaker(engine), project=project)
    engine.dispose()
    return token


def login(page, server, token: str) -> None:
    """Log ``page`` in with ``token`` through the login form; it lands on the overview."""
    page.goto(server.url + "/login")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_url(server.url + "/")
