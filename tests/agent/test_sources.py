"""Each source against its local protocol fake: the good path, and refused, slow and garbage."""

from __future__ import annotations

import time

import pytest

from tests.agent.fakes import MetadataServer, MetricService, TpuApi, closed_port
from tests.helpers import wait_until
from tpuwatch.monitor import Monitor
from tpuwatch.sources import identity
from tpuwatch.sources.node_state import NodeStateSource
from tpuwatch.sources.tpu_metrics import SourceError, TpuMetricsSource

NODE = "projects/proj-1/locations/us-central2-b/nodes/my-v4"


@pytest.fixture
def mon(tmp_path):
    m = Monitor("sources", spool_dir=tmp_path / "spool", send=False, flush_interval=3600)
    yield m
    m.close()


def metrics_of(mon: Monitor) -> dict:
    out: dict = {}
    for _, name, chip, value in mon._metrics:
        out.setdefault(name, {})[chip] = value
    return out


# -- libtpu runtime metrics ----------------------------------------------------------------------


def test_tpu_metrics_records_hbm_and_duty_cycle_per_chip(mon):
    with MetricService(chips=4) as fake:
        fake.used[3] = 7_500_000_000
        source = TpuMetricsSource(mon, fake.address, timeout=2.0)
        assert source.sample() > 12  # every metric the service serves, HBM and duty cycle among them
        source.sample()  # the supported-metrics probe is asked once per run
    got = metrics_of(mon)
    assert got["tpu.hbm.used_bytes"] == {0: 1e9, 1: 2e9, 2: 3e9, 3: 7.5e9}
    assert got["tpu.hbm.total_bytes"][2] == 16 * 2**30
    assert got["tpu.duty_cycle_pct"] == {0: 50.0, 1: 51.0, 2: 52.0, 3: 53.0}
    assert fake.calls.count("ListSupportedMetrics") == 1


def test_tpu_metrics_refused_says_unavailable(mon):
    source = TpuMetricsSource(mon, f"127.0.0.1:{closed_port()}", timeout=1.0)
    with pytest.raises(SourceError, match="UNAVAILABLE|no answer"):
        source.sample()
    assert not mon._metrics


def test_tpu_metrics_slow_service_times_out_quickly(mon):
    with MetricService(mode="slow", delay=3.0) as fake:
        source = TpuMetricsSource(mon, fake.address, timeout=0.3)
        t0 = time.monotonic()
        with pytest.raises(SourceError, match="DEADLINE_EXCEEDED"):
            source.sample()
        assert time.monotonic() - t0 < 1.5


def test_tpu_metrics_garbage_answer_is_an_error_not_a_crash(mon):
    with MetricService(mode="garbage") as fake:
        source = TpuMetricsSource(mon, fake.address, timeout=2.0)
        with pytest.raises(SourceError):
            source.sample()
    assert not mon._metrics


def test_tpu_metrics_thread_says_one_line_however_often_it_fails(mon, capfd):
    source = TpuMetricsSource(mon, f"127.0.0.1:{closed_port()}", every=0.05, timeout=0.2).start()
    deadline = time.monotonic() + 10
    while source.failures < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    source.stop()
    lines = [x for x in capfd.readouterr().err.splitlines() if "tpu metrics" in x]
    assert source.failures >= 3
    assert len(lines) == 1, lines
    assert "unavailable" in lines[0] and "training is not affected" in lines[0]


# -- identity --------------------------------------------------------------------------------


def test_identity_from_the_metadata_server(monkeypatch):
    with MetadataServer(node="my-v4", worker=3) as fake:
        monkeypatch.setenv("GCE_METADATA_HOST", fake.host)
        ident = identity.resolve()
    assert ident["tpu_name"] == "my-v4"
    assert ident["worker"] == 3 and ident["source"] == "metadata"
    assert ident["zone"] == "us-central2-b"
    assert ident["accelerator_type"] == "v4-16"
    assert ident["topology"] == "2x2x2"
    assert ident["preemptible"] is True
    assert ident["project"] == "proj-1"
    assert "metadata_error" not in ident


def test_identity_flags_override_the_metadata_server(monkeypatch):
    with MetadataServer(node="my-v4", worker=3) as fake:
        monkeypatch.setenv("GCE_METADATA_HOST", fake.host)
        ident = identity.resolve({"worker": 1, "tpu_name": "other"})
    assert ident["worker"] == 1 and ident["source"] == "flags"
    assert ident["tpu_name"] == "other" and ident["zone"] == "us-central2-b"


@pytest.mark.parametrize("mode", ["refused", "slow", "garbage"])
def test_identity_falls_back_to_env_when_metadata_fails(monkeypatch, capfd, mode):
    monkeypatch.setenv("TPU_NAME", "env-tpu")
    monkeypatch.setenv("TPU_WORKER_ID", "2")
    identity.log._said.discard("identity")
    if mode == "refused":
        monkeypatch.setenv("GCE_METADATA_HOST", f"127.0.0.1:{closed_port()}")
        ident = identity.resolve(timeout=1.0)
    else:
        with MetadataServer(mode=mode, delay=3.0) as fake:
            monkeypatch.setenv("GCE_METADATA_HOST", fake.host)
            t0 = time.monotonic()
            ident = identity.resolve(timeout=0.5)
            assert time.monotonic() - t0 < 1.5
    assert ident["tpu_name"] == "env-tpu" and ident["worker"] == 2 and ident["source"] == "env"
    assert ident["metadata_error"]
    err = capfd.readouterr().err
    assert err.count("GCE metadata server not reachable") == 1


def test_identity_reads_the_worker_from_a_tpu_vm_hostname():
    assert identity.from_hostname("t1v-n-3f2a9c1e-w-7") == {"worker": 7, "tpu_hash": "3f2a9c1e"}
    assert identity.from_hostname("my-laptop") == {}


def test_tpu_env_parsing_strips_quotes_and_ignores_junk():
    env = identity.parse_tpu_env("NODE_ID: 'n1'\nZONE: \"z\"\n garbage line\nlower: x\nWORKER_ID: 4")
    assert env == {"NODE_ID": "n1", "ZONE": "z", "WORKER_ID": "4"}


# -- Cloud TPU node state ----------------------------------------------------------------------


def test_node_state_changes_become_events_and_preemption_is_flagged(mon):
    with TpuApi(NODE) as api:
        source = NodeStateSource(mon, NODE, endpoint=api.url, timeout=5)
        assert source.poll()["state"] == "READY"
        source.poll()  # unchanged: no second event
        api.state = "PREEMPTED"
        api.symptoms = [{"symptomType": "EXECUTE_TIMED_OUT", "details": "worker 1 stuck", "workerId": "1"}]
        data = source.poll()
    events = [e for e in mon._events if e[1] == "node_state"]
    assert len(events) == 2
    assert events[0][3]["state"] == "READY" and "likely_cause" not in events[0][3]
    assert data["likely_cause"] == "preemption"
    assert events[1][3]["symptoms"][0]["type"] == "EXECUTE_TIMED_OUT"
    assert "PREEMPTED" in events[1][2]


def test_stopping_looks_once_more_so_a_preemption_between_polls_is_seen(mon):
    with TpuApi(NODE) as api:
        source = NodeStateSource(mon, NODE, endpoint=api.url, every=3600, timeout=5).start()
        wait_until(lambda: source.polls == 1, timeout=30)
        api.state = "PREEMPTED"  # the next regular poll would be an hour away
        source.stop(timeout=10)
    assert not source._thread.is_alive()
    states = [e[3]["state"] for e in mon._events if e[1] == "node_state"]
    assert states == ["READY", "PREEMPTED"]
    assert source.polls == 2


def test_node_state_unhealthy_health_is_a_likely_cause(mon):
    with TpuApi(NODE) as api:
        api.health = "UNHEALTHY_MAINTENANCE"
        data = NodeStateSource(mon, NODE, endpoint=api.url).poll()
    assert data["likely_cause"] == "unhealthy"


@pytest.mark.parametrize("mode", ["refused", "slow", "garbage", "missing"])
def test_node_state_failures_say_one_line_and_record_nothing(mon, capfd, mode):
    from tpuwatch import log

    log._said.discard("node-state")
    if mode == "refused":
        url, fake = f"http://127.0.0.1:{closed_port()}", None
    else:
        fake = TpuApi(
            NODE if mode != "missing" else NODE + "-other", mode="ok" if mode == "missing" else mode
        )
        fake.__enter__()
        url = fake.url
    try:
        source = NodeStateSource(mon, NODE, endpoint=url, every=0.05, timeout=0.5).start()
        time.sleep(1.5)
        source.stop()
    finally:
        if fake is not None:
            fake.__exit__(None, None, None)
    assert not [e for e in mon._events if e[1] == "node_state"]
    lines = [x for x in capfd.readouterr().err.splitlines() if "node state" in x]
    assert len(lines) == 1, lines
    assert NODE in lines[0]
