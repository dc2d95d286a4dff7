# The alert tests' webhook receiver and the browser tests' Chromium, for the device tests.
from tests.alerts.conftest import webhook  # noqa: F401
from tests.browser.conftest import browser, page, sqlite_server  # noqa: F401
