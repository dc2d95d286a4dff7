"""The server paces a big slice: it asks each host for an interval that grows with the hosts sending
and the measured cost of a batch, and the real agent keeps at least that interval."""

from __future__ import annotations

import json
import math
import time
import uuid

import httpx
import pytest

from tests.conftest import make_token, start_server
from tests.helpers import wait_until
from tpuwatch import wire
from tpuwatch.monitor import Monitor
from tpuwatch.server.ops.pacing import LATE_S, MAX_TRACKED_HOSTS, PRIOR_COST_S, Pacing
from tpuwatch.transport import PACE_HEADER, HttpTransport


class Clock:
    def __init__(self) -> None:
        self.now = 0.0


def _pacing(clock: Clock, **kw) -> Pacing:
    return Pacing(clock=lambda: clock.now, **kw)


def _batches(pacing: Pacing, hosts: int, cpu_each: float) -> None:
    for host in range(hosts):
        pacing.served(f"h/{host}")
        pacing.spent(cpu_each)


def test_interval_is_hosts_times_cost_over_budget_within_floor_and_cap():
    clock = Clock()
    pacing = _pacing(clock, cpu_budget=0.5, cap=30.0)
    _batches(pacing, 1024, 0.002)  # 2 ms in the worker thread, 1 ms around it
    clock.now = 1.0
    assert pacing.interval() == pytest.approx(1024 * 0.003 / 0.5, abs=0.01)  # to 10 ms
    assert pacing.retry_after() == 7  # an interval at least, in whole seconds rounded up

    small = _pacing(Clock(), cpu_budget=0.5)
    _batches(small, 1, 0.002)
    assert small.interval() == 0.0  # a small job: nothing beyond the agent's own interval

    capped = _pacing(clock := Clock(), cpu_budget=0.01, cap=12.0)
    _batches(capped, 500, 0.01)
    clock.now = 1.0
    assert capped.interval() == 12.0


def test_hosts_arriving_between_estimates_are_counted_at_once():
    """A slice's hosts all arrive within a second: the interval answered to the last of them
    counts the others, not the none of the last estimate."""
    clock = Clock()
    pacing = _pacing(clock, cpu_budget=0.5)
    clock.now = 1.0
    pacing.served("h/0")
    assert pacing.interval() == 0.0
    clock.now = 1.4  # within the estimate's second
    _batches(pacing, 1000, 0.0)
    assert pacing.interval() == pytest.approx(1000 * PRIOR_COST_S / 0.5, abs=0.01)
    pacing.served("h/1000")  # one more is not worth sizing it again
    assert pacing.interval() == pytest.approx(1000 * PRIOR_COST_S / 0.5, abs=0.01)


def test_hosts_refused_together_are_told_later_and_later_seconds():
    """From an interval, at the rate batches fit the budget (0.5 / 2 ms: 250 a second), over one
    interval at most; once the refusals stop, the next host refused is told an interval again."""
    clock = Clock()
    pacing = _pacing(clock, cpu_budget=0.5)
    clock.now = 0.5
    _batches(pacing, 4000, 0.0)
    interval = pacing.interval()
    assert interval == 16.0  # 4,000 hosts x 2 ms / 0.5, sized as they came
    told = [pacing.retry_after() for _ in range(1000)]
    assert told[0] == 16 and told == sorted(told)
    assert max(told.count(s) for s in set(told)) <= 251
    clock.now = 60.0
    assert pacing.retry_after() == max(1, math.ceil(pacing.interval()))


def test_refused_hosts_are_spread_over_one_interval_however_many():
    """Refusals that last must not tell hosts a minute: the spread covers an interval, then
    starts again."""
    clock = Clock()
    pacing = _pacing(clock, cpu_budget=0.5)
    _batches(pacing, 1024, 0.002)
    clock.now = 1.0
    interval = pacing.interval()
    told = [pacing.retry_after() for _ in range(5000)]
    assert min(told) == math.ceil(interval) and max(told) <= math.ceil(2 * interval)


def test_hosts_that_stopped_sending_stop_counting_and_a_few_batches_say_little_of_cost():
    clock = Clock()
    pacing = _pacing(clock, cpu_budget=0.5, window=30.0)
    _batches(pacing, 400, 0.001)  # 2 ms a batch: 400 x 2 ms / 0.5 = 1.6 s
    clock.now = 1.0
    assert pacing.interval() == pytest.approx(1.6)
    clock.now = 40.0  # every host went quiet (the job ended)...
    _batches(pacing, 1, 0.5)  # ...but one, whose few dear batches do not move the estimate
    assert pacing.hosts == 400
    assert pacing.interval() == 0.0  # 1 host x 2 ms / 0.5: the agent's own interval rules
    assert pacing.hosts == 1
    assert pacing.cost == pytest.approx(0.002)


def test_only_the_batches_own_cpu_counts_so_the_pace_cannot_run_away():
    # The alert loop and pages take CPU too. Charged to batches, it would make each batch look
    # dearer as batches grow fewer (a longer interval), and the interval would climb to its cap.
    clock = Clock()
    pacing = _pacing(clock, cpu_budget=0.5)
    asked, turn = [], 0
    for second in range(1, 30):
        hosts_sending_now = round(1024 / max(1.0, pacing.interval()))
        for _ in range(hosts_sending_now):  # each host in its turn, once an interval
            pacing.served(f"h/{turn % 1024}")
            pacing.spent(0.002)
            turn += 1
        clock.now = float(second)
        asked.append(pacing.interval())
    assert asked[-1] == pytest.approx(1024 * 0.003 / 0.5, abs=0.2)  # steady at ~6 s, far from 30


def test_the_event_loops_cpu_per_request_is_measured_when_the_loop_gives_its_reading():
    clock = Clock()
    pacing = _pacing(clock, cpu_budget=0.5)
    loop_cpu = 10.0
    pacing.interval(loop_cpu)  # the first reading: nothing to compare with yet
    for second in range(1, 12):
        _batches(pacing, 1000, 0.0005)  # 0.5 ms a batch in the writer...
        loop_cpu += 1000 * 0.0003  # ...and 0.3 ms on the loop around each request
        clock.now = float(second)
        pacing.interval(loop_cpu)
    assert pacing.framework == pytest.approx(0.0003, rel=0.02)
    assert pacing.interval() == pytest.approx(1000 * 0.0008 / 0.5, abs=0.02)  # not 1.5 ms a batch


def test_a_slice_starting_at_once_is_spread_from_the_first_estimate_before_any_cost_is_measured():
    clock = Clock()
    pacing = _pacing(clock, cpu_budget=0.5)
    for host in range(1024):
        pacing.served(str(host))
    clock.now = 1.0  # requests came in, but no batch has been stored yet...
    assert pacing.interval() == pytest.approx(1024 * PRIOR_COST_S / 0.5, abs=0.01)  # ...the prior counts
    assert pacing.cost == 0.0


def test_refusals_raise_the_interval_until_the_gate_is_calm_again():
    clock = Clock()
    pacing = _pacing(clock, cpu_budget=0.5)
    _batches(pacing, 200, 0.0015)  # 2.5 ms a batch: 200 hosts need 1 s
    clock.now = 1.0
    assert pacing.interval() == 1.0
    asked = []
    for second in range(2, 12):
        _batches(pacing, 200, 0.0015)
        if second < 6:  # the machine's cores are taken by others: the gate refuses for 4 s
            for _ in range(50):
                pacing.refused()
        clock.now = float(second)
        asked.append(pacing.interval())
    # A rise waits until the refusals lasted an interval (a backlog clears within one), and the
    # next until the hosts heard the last (with their next answer, an interval later).
    assert asked[:4] == [1.0, 1.5, 1.5, 2.25]
    assert asked[4:] == sorted(asked[4:], reverse=True) and asked[-1] < 2.0
    assert pacing.pressure < 2.0


def test_a_share_of_batches_stored_late_raises_the_interval_as_refusals_do():
    clock = Clock()
    pacing = _pacing(clock, cpu_budget=0.5)
    _batches(pacing, 200, 0.0015)
    clock.now = 1.0
    assert pacing.interval() == 1.0
    for _ in range(200):
        pacing.took(0.05)  # stored at once: no pressure
    _batches(pacing, 200, 0.0015)
    clock.now = 2.0
    assert pacing.interval() == 1.0
    for _ in range(3):
        pacing.took(LATE_S + 0.5)  # a late batch now and then (a machine shared with other work)...
    for _ in range(197):
        pacing.took(0.05)
    _batches(pacing, 200, 0.0015)
    clock.now = 3.0
    assert pacing.interval() == 1.0 and pacing.pressure == 1.0  # ...is no sign of falling behind
    for _ in range(20):
        pacing.took(LATE_S + 0.5)  # a tenth late: the writer fell behind, agents would time out
    for _ in range(180):
        pacing.took(0.05)
    _batches(pacing, 200, 0.0015)
    clock.now = 4.0
    assert pacing.interval() == 1.0  # a second of it may be a backlog clearing...
    for _ in range(20):
        pacing.took(LATE_S + 0.5)
    for _ in range(180):
        pacing.took(0.05)
    _batches(pacing, 200, 0.0015)
    clock.now = 5.0
    assert pacing.interval() == 1.5 and pacing.pressure == 1.5  # ...an interval of it is not


def test_invented_host_names_cannot_grow_memory_without_bound():
    pacing = _pacing(Clock())
    for host in range(MAX_TRACKED_HOSTS + 500):
        pacing.served(f"made-up-{host}")
    assert pacing.hosts == MAX_TRACKED_HOSTS


def _batch(run_id: str, host: int) -> bytes:
    now = time.time()
    batch = wire.batch(
        stream=uuid.uuid4().hex,
        seq=0,
        run=wire.run_info(run_id, "slice", host, {}),
        sent_at=now,
        steps=[[1, now - 0.5, 0.5, 0.01]],
        events=[],
        metrics=[],
        dropped=0,
    )
    return json.dumps(batch).encode()


def test_every_ingest_answer_carries_the_pace_and_the_agent_keeps_it(settings, sessions, tmp_path):
    token = make_token(sessions)
    # A budget so small that 40 hosts already need the longest interval this server asks for.
    tight = settings.model_copy(update={"ingest_cpu_budget": 1e-4, "ingest_max_pace_seconds": 7.0})
    server = start_server(tight)
    run_id = uuid.uuid4().hex
    try:
        transports = [HttpTransport(server.url, token, host=f"slice/{h}") for h in range(40)]
        replies = [t.send(_batch(run_id, h)) for h, t in enumerate(transports)]
        assert {r.status for r in replies} == {200}
        time.sleep(1.1)  # the server re-estimates at most once a second
        reply = transports[0].send(_batch(run_id, 0))
        assert reply.status == 200 and reply.pace == 7.0
        with httpx.Client(base_url=server.url) as client:
            raw = client.post(
                "/api/v1/ingest",
                content=_batch(run_id, 1),
                headers={"Authorization": f"Bearer {token}", "X-Tpuwatch-Host": "slice/1"},
            )
        assert raw.headers[PACE_HEADER] == "7"
        ingest = httpx.get(f"{server.url}/healthz").json()["ingest"]  # what an operator sees
        assert ingest["hosts_sending"] == 40 and ingest["pace_seconds"] == 7.0
        assert ingest["cpu_ms_per_batch"] > 0 and ingest["in_flight"] == 0

        mon = Monitor(
            "slice", server=server.url, token=token, run_id=run_id, host_index=40, spool_dir=tmp_path
        )
        try:
            mon.record_step(0.5, input_wait=0.01)
            pace = mon._sender_thread.sender.pace
            wait_until(lambda: pace.floor == 7.0, timeout=15)
            assert pace.interval >= 7.0  # the host now sends every ~7 s, not every second
        finally:
            mon.close(timeout=10)
        for t in transports:
            t.close()
    finally:
        server.stop()
