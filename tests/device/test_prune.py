"""``tpuwatch db prune`` deletes device rounds older than the raw-data age, and keeps newer ones."""

from __future__ import annotations

import time

from sqlalchemy import func, select

from tests.slice.seed import principal, store
from tpuwatch.server.db import transaction
from tpuwatch.server.device.store import prune
from tpuwatch.server.models import DeviceRound


def test_prune_deletes_old_rounds_only(sessions):
    who = principal(sessions)
    now = time.time()
    old, new = now - 8 * 86400, now - 60
    data = {"c": [0], "s": {"tpu.runtime.tensorcore.dutycycle.percent": [50.0]}}
    events = [[t, "device", "", data] for t in (old, new)]
    store(sessions, who, "prune", 0, 0, [(1, now, 1.0, 0.0)], events)
    with transaction(sessions) as s:
        assert prune(s, 7.0, now=now) == 1
    with transaction(sessions) as s:
        assert s.scalar(select(func.count()).select_from(DeviceRound)) == 1
        assert s.scalar(select(DeviceRound.ts)) == new
