"""A 64-host slice where one host runs 30% slower: every host's step time is the same (the
collective makes them wait for it), but its TensorCores are the busiest and its collective latency
the shortest. The job page and one alert name it within 5 minutes; equal hosts raise nothing.

Time is simulated: each host's real libtpu metrics source reads its own fake service (duty cycle,
TensorCore idle, collective latency, HBM) with its round stamped by a simulated clock, every 15 s of
it, and the rounds and steps go through the real ingest service; the real evaluator judges the
job at each simulated moment. Five simulated minutes take seconds.
"""

from __future__ import annotations

import re
import time
from contextlib import ExitStack

from sqlalchemy import select

from tests.agent.tpu_fake import COLLECTIVE_NAME, DUTY, HBM_USED, IDLE, MetricService
from tests.alerts.conftest import fast
from tests.slice.seed import principal
from tpuwatch.monitor import Monitor
from tpuwatch.server.alerts.evaluator import Evaluator
from tpuwatch.server.db import transaction
from tpuwatch.server.device.service import full_view
from tpuwatch.server.ingest.schemas import Batch
from tpuwatch.server.ingest.service import ingest
from tpuwatch.server.models import Alert, AlertLog, Job
from tpuwatch.sources.tpu_metrics import TpuMetricsSource

HOSTS = 64
SLOW = 41
ROUND_S = 15.0
MINUTES = 5
RECOVERED_MINUTES = 3


def _even(fake: MetricService, h: int) -> None:
    fake.duty = {c: 76.0 + (h * 7 + c) % 3 for c in range(4)}
    fake.idle_s = {c: 0.23 for c in range(4)}
    fake.latency_us[COLLECTIVE_NAME] = 230_000.0


def _slice(settings, sessions, tmp_path, run_id: str, slow: int | None, recover_after: float | None = None):
    """Run the slice for ``MINUTES`` simulated minutes (and as long again once the slow host
    recovers, with ``recover_after``): when the alert first named it, the alerts, their log, the
    device view at the end."""
    who = principal(sessions)
    minutes = MINUTES + (RECOVERED_MINUTES if recover_after is not None else 0)
    t0 = time.time() - minutes * 60 - 30
    clock = [t0]
    with ExitStack() as stack:
        fakes = [stack.enter_context(MetricService(chips=4)) for _ in range(HOSTS)]
        mons = [
            Monitor(run_id, run_id=run_id, host_index=h, spool_dir=tmp_path / f"h{h}", send=False)
            for h in range(HOSTS)
        ]
        for mon in mons:
            stack.callback(mon.close, 2.0)
        for h, fake in enumerate(fakes):
            fake.listed = [HBM_USED, DUTY, IDLE, COLLECTIVE_NAME]
            # Step time 1 s on every host. A normal host computes 0.77 s of it and waits 0.23 s in
            # the collective for the slow one; the slow host computes the whole second.
            _even(fake, h)
            if h == slow:
                fake.duty = {c: 99.0 for c in range(4)}
                fake.idle_s = {c: 0.01 for c in range(4)}
                fake.latency_us[COLLECTIVE_NAME] = 2_600.0
        sources = [
            TpuMetricsSource(mon, fake.address, timeout=2.0, clock=lambda: clock[0])
            for mon, fake in zip(mons, fakes, strict=True)
        ]
        ev = Evaluator(fast(settings))
        step, seq, named_at, named_view = 0, 0, None, None
        while clock[0] < t0 + minutes * 60:
            clock[0] += ROUND_S
            if recover_after is not None and slow is not None and clock[0] - t0 > recover_after:
                _even(fakes[slow], slow)  # the slow host is fixed (or replaced): all equal again
            steps = [[step + i, clock[0] - ROUND_S + i + 1, 1.0, 0.01] for i in range(int(ROUND_S))]
            step += int(ROUND_S)
            with transaction(sessions) as s:
                for h, (mon, source) in enumerate(zip(mons, sources, strict=True)):
                    source.sample()
                    events = [list(e) for e in mon._events]
                    mon._events.clear()
                    run = {"run_id": run_id, "job": run_id, "host": h}
                    batch = Batch(stream=f"{run_id}-{h}", seq=seq, run=run, steps=steps, events=events)
                    job_id = ingest(s, who, batch).job_id
            seq += 1
            with transaction(sessions) as s:
                ev.evaluate(s, now=clock[0])
                alert = s.scalar(select(Alert).where(Alert.job_id == job_id))
                if alert is not None and named_at is None:
                    named_at = clock[0] - t0
                    named_view = full_view(s, s.get(Job, job_id), settings, now=clock[0])
        with transaction(sessions) as s:
            alerts = s.scalars(select(Alert).where(Alert.job_id == job_id)).all()
            log = s.scalars(select(AlertLog.action).order_by(AlertLog.id)).all()
            view = full_view(s, s.get(Job, job_id), settings, now=clock[0])
    return named_at, alerts, log, view, named_view


def test_a_host_30_percent_slower_is_named_on_the_page_and_in_one_alert_within_5_minutes(
    settings, sessions, tmp_path
):
    named_at, alerts, log, view, named_view = _slice(
        settings, sessions, tmp_path, "pod-slow", slow=SLOW, recover_after=MINUTES * 60
    )
    assert named_at is not None and named_at <= 5 * 60, named_at
    (alert,) = alerts
    assert alert.condition == "straggler" and log == ["fired", "resolved"]  # one alert, resolved when it ends
    assert f"host {SLOW} is the compute straggler" in alert.summary
    assert "TensorCores 99% busy, the others 77%" in alert.summary
    # The fake's latencies (2.6 ms, 230 ms) as the agent's percentiles of its buckets read them.
    assert re.search(r"collective latency 2\.\d+ ms against 2[23]\d ms: it arrives last", alert.summary)
    print(f"straggler named {named_at:.0f} s (simulated) after the slice started")
    (found,) = named_view.stragglers  # the job page's device section, when the alert fired
    assert found.host == SLOW and found.kind == "compute" and found.busy == 99.0
    assert alert.state == "resolved" and view.stragglers == []


def test_a_slice_of_equal_hosts_raises_no_straggler(settings, sessions, tmp_path):
    named_at, alerts, _, view, _ = _slice(settings, sessions, tmp_path, "pod-even", slow=None)
    assert named_at is None and not alerts
    assert view.stragglers == []
