from tests.alerts.conftest import webhook  # noqa: F401 - the alert tests' webhook receiver fixture
