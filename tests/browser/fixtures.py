"""The browser tests' fixtures: a real Chromium (Debian's /usr/bin/chromium, never `playwright
install`) driving a real server. Registered once, in tests/conftest.py, so every folder shares one
browser per worker (two sync Playwright sessions cannot live on one thread).

Without Chromium these tests skip with the reason printed, unless TPUWATCH_REQUIRE_BROWSER is set
(CI sets it): then they fail, so a missing browser cannot pass for a green run.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import start_server
from tpuwatch.server.settings import Settings

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        reason = f"{CHROMIUM} is missing (apt-get install chromium)"
        if os.environ.get("TPUWATCH_REQUIRE_BROWSER"):
            pytest.fail(f"TPUWATCH_REQUIRE_BROWSER is set but {reason}")
        print(f"\nbrowser tests skipped: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    p = context.new_page()
    p.dialogs = []  # any alert() a page manages to run lands here

    def on_dialog(d):
        p.dialogs.append(d.message)
        d.dismiss()

    p.on("dialog", on_dialog)
    yield p
    context.close()


@pytest.fixture
def sqlite_server(tmp_path, sqlite_template):
    """A live server on SQLite only: browser tests are slow, once is enough."""
    db = tmp_path / "tpuwatch.db"
    shutil.copy(sqlite_template, db)
    settings = Settings(db=f"sqlite:///{db}", data_dir=tmp_path / "data", secret_key="browser-tests")
    server = start_server(settings)
    yield server
    server.stop()
