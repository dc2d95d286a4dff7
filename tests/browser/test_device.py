"""The job page's TPU runtime section in Chromium, for a 64-host slice: every metric as a heatmap
(hosts by time) and bands over hosts, the table over the slice, and the straggler the device names.
Rounds are packed by the agent's own code (agent/sources/device_round.py) and stored through the
ingest service, as 64 agents' batches."""

from __future__ import annotations

import time

from tests.slice.seed import token_and_principal
from tpuwatch.server.db import make_engine, make_sessionmaker, transaction
from tpuwatch.server.ingest.schemas import Batch
from tpuwatch.server.ingest.service import ingest
from tpuwatch.sources.device_round import Round

HOSTS, SLOW, ROUNDS = 64, 41, 12
DUTY = "tpu.runtime.tensorcore.dutycycle.percent"
COLLECTIVE = "megascale.collective_end_to_end_latencies.microsecond.cumulative.distribution"
UNKNOWN = "tpu.runtime.brand.new.gauge"


def _seed(sessions, who) -> int:
    t0 = time.time() - ROUNDS * 5
    with transaction(sessions) as s:
        for h in range(HOSTS):
            events = []
            for i in range(ROUNDS):
                r = Round()
                for chip in range(4):
                    r.add(DUTY, chip, 99.0 if h == SLOW else 76.0 + (h + chip) % 3)
                r.add(UNKNOWN, None, float(h))
                coll = 2600.0 if h == SLOW else 230_000.0
                r.add_stats(COLLECTIVE, None, [coll, coll * 1.2, coll * 1.5, coll * 2, coll])
                events.append([t0 + i * 5, "device", "", r.packed()])
            run = {"run_id": "pod-page", "job": "pod-page", "host": h}
            steps = [[i, t0 + i, 1.0, 0.01] for i in range(ROUNDS * 5)]
            job_id = ingest(s, who, Batch(stream=f"p-{h}", seq=0, run=run, steps=steps, events=events)).job_id
    return job_id


def test_a_64_host_slice_draws_every_metric_as_heatmap_and_bands(sqlite_server, page):
    engine = make_engine(sqlite_server.settings.database_url)
    token, who = token_and_principal(make_sessionmaker(engine), project="pod")
    job_id = _seed(make_sessionmaker(engine), who)
    engine.dispose()
    page.goto(sqlite_server.url + "/login")
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_selector("#jobs-table")
    page.goto(f"{sqlite_server.url}/jobs/{job_id}")
    heat = "#chart-tpu_tpu_runtime_tensorcore_dutycycle_percent_heat"
    page.wait_for_function(f"() => document.querySelector('{heat}').data?.length === 1")
    shape = page.evaluate(
        f"() => {{ const t = document.querySelector('{heat}').data[0];"
        f" return [t.type, t.y.length, t.z[{SLOW}][0]]; }}"
    )
    assert shape == ["heatmap", HOSTS, 99.0]
    bands = "#chart-tpu_" + COLLECTIVE.replace(".", "_") + "_p50_bands"
    page.wait_for_function(f"() => document.querySelector('{bands}').data?.length === 3")
    assert page.evaluate(f"() => document.querySelector('{bands}').data.map(t => t.name)") == [
        "p50 over hosts",
        "p90 over hosts",
        "max over hosts",
    ]
    table = page.locator("#device-metrics").inner_text()
    assert "TensorCore duty cycle" in table and UNKNOWN in table
    assert "Collective end-to-end latency p99.9" in table
    assert f"99.0% ({SLOW})" in table  # the busiest host, named in the table
    assert f"host {SLOW} is the compute straggler" in page.locator("#device-stragglers").inner_text()
