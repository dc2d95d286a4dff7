# The alert tests' webhook receiver, for the device tests (the browser: tests/browser/fixtures.py).
from tests.alerts.conftest import webhook  # noqa: F401
