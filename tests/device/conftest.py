# The alert tests' webhook receiver, for the slice hang test.
from tests.alerts.conftest import webhook  # noqa: F401
