"""Every runtime metric libtpu serves, one packed ``device`` event per round, and the cores' state
read once per server ask: the agent's source against the fake service built from tpu-info's proto."""

from __future__ import annotations

import time

import pytest

from tests.agent.tpu_fake import ALL_METRICS, HLO_TIMING, MEGASCALE, UPTIME, MetricService
from tests.helpers import wait_until
from tpuwatch.monitor import Monitor
from tpuwatch.sources.tpu_metrics import TpuMetricsSource

COLLECTIVE = next(n for n in MEGASCALE if "collective_end_to_end" in n)


@pytest.fixture
def mon(tmp_path):
    m = Monitor("device", spool_dir=tmp_path / "spool", send=False, flush_interval=3600)
    yield m
    m.close()


def events(mon: Monitor, kind: str) -> list[tuple]:
    return [e for e in mon._events if e[1] == kind]


def test_a_round_packs_every_listed_metric_into_one_event_unknown_names_kept(mon):
    with MetricService(chips=4) as fake:
        fake.duty[2] = 97.5
        TpuMetricsSource(mon, fake.address, timeout=2.0).sample()
    (ev,) = events(mon, "device")
    data = ev[3]
    assert data["c"] == [0, 1, 2, 3]
    series, dists = data["s"], data["d"]
    assert set(series) | set(dists) == set(ALL_METRICS)
    assert set(dists) == {HLO_TIMING, *MEGASCALE}
    assert series["tpu.runtime.tensorcore.dutycycle.percent"][2] == 97.5
    assert series[UPTIME] == 3600.0  # a host-wide gauge tpuwatch has no name for: kept by its own
    assert series["hlo.queue.size.gauge"] == [2, 2, 2, 2]
    # [p50, p90, p99, p99.9, mean]: host-wide for the megascale ones (buffer sizes summed), per chip
    # for HLO execution timing.
    p50, p90, p99, p999, mean = dists[COLLECTIVE]
    assert 2500 * 0.85 < p50 < 2500 * 1.15 and p50 < p90 < p99 < p999 and mean == 2500.0
    assert len(dists[HLO_TIMING]) == 4 and all(len(chip) == 5 for chip in dists[HLO_TIMING])


def test_a_rounds_distribution_is_what_happened_since_the_last_round(mon):
    with MetricService(chips=1) as fake:
        source = TpuMetricsSource(mon, fake.address, timeout=2.0)
        source.sample()
        fake.latency_us[COLLECTIVE] = 10_000.0
        source.sample()
    first, second = (e[3]["d"][COLLECTIVE][0] for e in events(mon, "device"))
    assert first < 3000 and second > 8500  # not the blend of both since libtpu started


def test_a_metric_the_service_lists_but_does_not_serve_is_skipped_not_fatal(mon):
    with MetricService(chips=2) as fake:
        fake.listed.append("tpu.runtime.not.served.yet")
        source = TpuMetricsSource(mon, fake.address, timeout=2.0)
        source.sample()
        source.sample()
    assert fake.calls.count("tpu.runtime.not.served.yet") == 1
    assert len(events(mon, "device")) == 2


def test_the_cores_state_is_read_once_per_ask_and_never_unasked(mon):
    with MetricService(chips=2, cores_per_chip=2) as fake:
        fake.place("all-reduce.3")
        source = TpuMetricsSource(mon, fake.address, every=30.0, timeout=2.0).start()
        try:
            wait_until(lambda: events(mon, "device"), timeout=10)
            assert "GetTpuRuntimeStatus" not in fake.calls
            mon.asks.hear("core_state=41")
            wait_until(lambda: events(mon, "core_state"), timeout=5)
            mon.asks.hear("core_state=41")  # the server repeats a fresh ask on every answer
            time.sleep(0.3)
        finally:
            source.stop()
    (ev,) = events(mon, "core_state")
    assert fake.calls.count("GetTpuRuntimeStatus") == 1
    cores = ev[3]["cores"]
    assert ev[3]["ask"] == "41" and len(cores) == 4
    assert {c["hlo"] for c in cores} == {"all-reduce.3"} and [c["chip"] for c in cores] == [0, 0, 1, 1]
    assert cores[0]["queued"] == 1 and cores[0]["type"] == "TENSOR_CORE" and cores[0]["program"]
