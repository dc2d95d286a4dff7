"""Every table, gathered: import them from here (``from tpuwatch.server.models import Job``).

One module per group of tables. These modules import ``Base`` from ``tpuwatch.server.db`` and nothing
from the domains, so any domain may import any table without a cycle; importing this package puts
every table in ``Base.metadata``, which is what Alembic compares the migrations with.
"""

from tpuwatch.server.models.alerts import Alert, AlertChannel, AlertDelivery, AlertLog
from tpuwatch.server.models.device import DeviceAsk, DeviceRound
from tpuwatch.server.models.jobs import Event, IngestDrop, IngestKey, IngestPart, Job, JobHost
from tpuwatch.server.models.projects import ApiToken, Project, WebSession
from tpuwatch.server.models.series import LEVEL_WIDTHS, LogLine, Metric, Step, StepRollup

__all__ = [
    "LEVEL_WIDTHS",
    "Alert",
    "AlertChannel",
    "AlertDelivery",
    "AlertLog",
    "DeviceAsk",
    "DeviceRound",
    "ApiToken",
    "Event",
    "IngestDrop",
    "IngestKey",
    "IngestPart",
    "Job",
    "JobHost",
    "LogLine",
    "Metric",
    "Project",
    "Step",
    "StepRollup",
    "WebSession",
]
