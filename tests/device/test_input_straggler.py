"""An input straggler: one host's input wait is the longest by far while every step time is equal
(the collective evens them out). The device view names it, from the step rollups every host keeps."""

from __future__ import annotations

import time

from tests.slice.seed import principal, store
from tpuwatch.server.db import transaction
from tpuwatch.server.device.straggler import stragglers
from tpuwatch.server.models import Job


def test_the_host_that_waits_longest_for_input_is_the_input_straggler(sessions):
    who = principal(sessions)
    t0 = time.time() - 200
    for host in range(20):
        wait = 0.4 if host == 5 else 0.02
        job_id = store(sessions, who, "input", host, 0, [(i, t0 + i, 1.0, wait) for i in range(100)])
    with transaction(sessions) as s:
        (found,) = stragglers(s, s.get(Job, job_id), time.time(), 120.0)
    assert (found.host, found.kind) == (5, "input")
    assert found.line == (
        "host 5 is the input straggler: input wait 0.400 s a step against 0.020 s on the others"
    )


def test_equal_input_waits_name_nobody(sessions):
    who = principal(sessions)
    t0 = time.time() - 200
    for host in range(20):
        job_id = store(sessions, who, "even", host, 0, [(i, t0 + i, 1.0, 0.02) for i in range(100)])
    with transaction(sessions) as s:
        assert stragglers(s, s.get(Job, job_id), time.time(), 120.0) == []
