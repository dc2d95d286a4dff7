"""Which host: a stalled slice names the host that stopped first with its stacks, in the alert and
the post-mortem; a slow slice names its slowest hosts, input-bound or compute-bound."""

from __future__ import annotations

import time

from sqlalchemy import select

from tests.alerts.conftest import fast
from tests.slice.seed import principal, store
from tpuwatch.server.alerts.evaluator import Evaluator
from tpuwatch.server.alerts.slowdown import SpeedFacts, what_changed
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Alert, Job
from tpuwatch.server.postmortem.service import postmortem
from tpuwatch.server.slice.hosts import host_stats, slow_lines, slowest

HOSTS = 20
STACK = (
    "Thread 0x7f01 (most recent call first):\n"
    '  File "/usr/lib/python3.11/threading.py", line 320 in wait\n'
    "Current thread 0x7f00 (most recent call first):\n"
    '  File "/job/train.py", line 88 in all_reduce\n'
    '  File "/job/train.py", line 120 in train_step\n'
)


def test_a_stalled_slice_names_the_host_that_stopped_first_with_its_stacks(settings, sessions):
    who = principal(sessions)
    t0 = time.time() - 120
    for host in range(HOSTS):
        last = 45 if host == 13 else 50
        steps = [(i, t0 + i * 0.5, 0.5, 0.01) for i in range(last + 1)]
        events = [(t0 + 40, "stacks", STACK, {"step": 45})] if host == 13 else []
        job_id = store(sessions, who, "stalls", host, 0, steps, events)
    ev = Evaluator(fast(settings))
    with transaction(sessions) as s:
        ev.evaluate(s, now=time.time())
    with transaction(sessions) as s:
        alert = s.scalar(select(Alert).where(Alert.job_id == job_id))
        pm = postmortem(s, s.get(Job, job_id), settings)
    assert alert.condition == "stalled"
    assert "stopped first: host 13 (t1v-n-ab-w-13) at step 45" in alert.summary
    assert "5 steps behind" in alert.summary
    assert 'stacks on host 13: File "/job/train.py", line 88 in all_reduce' in alert.summary
    assert alert.details["hosts"][0].startswith("stopped first: host 13")
    (first,) = pm.which_host.stopped_first
    assert first.host_index == 13 and first.last_step == 45 and "all_reduce" in first.stack


def test_a_slow_slice_names_its_slowest_hosts_input_or_compute_bound(sessions):
    who = principal(sessions)
    t0 = time.time() - 600
    for host in range(HOSTS):
        d, w = {5: (2.0, 1.3), 9: (1.6, 0.01)}.get(host, (1.0, 0.01))
        steps = [(i, t0 + i, d, w) for i in range(100)]
        job_id = store(sessions, who, "slow", host, 0, steps)
    with transaction(sessions) as s:
        stats = host_stats(s, s.get(Job, job_id))
    slow = slowest(stats)
    assert [(h.host_index, h.bound) for h in slow] == [(5, "input"), (9, "compute")]
    assert slow[0].vs_median == 2.0 and slow[0].steps == 100 and slow[0].last_step == 99
    lines = slow_lines(slow)
    assert lines == [
        "slowest hosts: 5 (2.00 s a step, 2.0x the median; input-bound, input wait 1.30 s), "
        "9 (1.60 s a step, 1.6x the median; compute-bound)"
    ]
    sf = SpeedFacts(baseline=1.0, spread=0.01, steps=[(1.0, 2.0, 0.0)], host_lines=lines)
    said, _ = what_changed(sf, sf.steps, None)
    assert lines[0] in said
