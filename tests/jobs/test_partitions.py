"""Retention of raw steps: a day partition dropped whole on PostgreSQL, rows deleted on SQLite; the
rollups stay and the run's chart still draws the dropped day."""

from __future__ import annotations

import time

from sqlalchemy import func, select

from tests.slice.seed import principal, store
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Job, Step, StepRollup
from tpuwatch.server.series import partitions
from tpuwatch.server.series.rollups import prune_raw_steps
from tpuwatch.server.series.service import step_series

DAY = 86400


def test_old_raw_steps_go_by_dropping_their_day_partition_and_rollups_stay(sessions):
    now = time.time()
    old_day = now - now % DAY - 5 * DAY
    with transaction(sessions) as s:
        pg = partitions.partitioned(s.connection())
        if pg:
            assert partitions.ensure(s.connection(), now) == []  # the migration made today's and the next
            assert partitions.create_day(s.connection(), old_day)
    who = principal(sessions)
    old = [(i, old_day + 3600 + i, 9.0 if i == 50 else 0.5, 0.01) for i in range(200)]
    new = [(i, now - 300 + i - 200, 0.5, 0.01) for i in range(200, 300)]
    store(sessions, who, "keep", 0, 0, old)
    job_id = store(sessions, who, "keep", 0, 1, new)
    with transaction(sessions) as s:
        if pg:
            held = s.connection().exec_driver_sql(f'SELECT count(*) FROM "{partitions.name_for(old_day)}"')
            assert held.scalar() == 200
        result = prune_raw_steps(s, older_than_days=2, now=now)
    with transaction(sessions) as s:
        raw = s.scalar(select(func.count()).select_from(Step).where(Step.job_id == job_id))
        rolled = s.scalar(
            select(func.sum(StepRollup.n)).where(StepRollup.job_id == job_id, StepRollup.level == 0)
        )
        series = step_series(s, s.get(Job, job_id), points=1000)
        left = partitions.partitions(s.connection()) if pg else []
    assert raw == 100 and rolled == 300
    assert result["jobs"] == 1 and result["rebuilt"] == 0
    if pg:
        assert result["partitions"] == 1 and partitions.name_for(old_day) not in left
        assert partitions.DEFAULT in left
    else:
        assert result == {"jobs": 1, "rebuilt": 0, "deleted": 200, "partitions": 0}
    line = next(x for x in series.series if x.metric == "step_time")
    assert max(line.y) == 9.0 and min(line.x) == 0 and max(line.x) >= 288  # the last bucket
