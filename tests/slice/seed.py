"""A slice seeded through the real ingest service: many hosts, one token, batches interleaved."""

from __future__ import annotations

import time

from tests.conftest import make_token
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest.schemas import Batch
from tpuwatch.server.ingest.service import ingest
from tpuwatch.server.tokens.service import authenticate


def principal(sessions):
    return token_and_principal(sessions)[1]


def token_and_principal(sessions, project: str = "team-a"):
    token = make_token(sessions, project=project)
    with transaction(sessions) as s:
        return token, authenticate(s, token)


def store(sessions, who, run_id: str, host: int, seq: int, steps=(), events=(), metrics=()) -> int:
    batch = Batch(
        stream=f"{run_id}-{host}",
        seq=seq,
        run={"run_id": run_id, "job": run_id, "host": host, "attrs": {"hostname": f"t1v-n-ab-w-{host}"}},
        steps=[list(r) for r in steps],
        events=[list(e) for e in events],
        metrics=[list(m) for m in metrics],
    )
    with transaction(sessions) as s:
        return ingest(s, who, batch).job_id


SLOW = {700: (2.0, 1.2), 333: (1.8, 0.01)}  # host: (step time, input wait): input- and compute-bound


def slice_job(
    sessions, who, hosts: int = 1024, steps: int = 64, chips: int = 4, run_id: str = "pod", slow=None
) -> int:
    """A ``hosts``-host job with ``steps`` steps a host and HBM / duty samples of ``chips`` chips a
    host, stored through the ingest service in one transaction (a batch per host, as agents send)."""
    t0 = time.time() - steps - 60
    with transaction(sessions) as s:
        for host in range(hosts):
            d, w = (SLOW if slow is None else slow).get(host, (1.0, 0.02))
            rows = [[i, t0 + i, d if i else 30.0, w] for i in range(steps)]
            metrics = []
            for chip in range(chips):
                metrics += [
                    [t0 + steps, "tpu.hbm.used_bytes", chip, (8 + (host + chip) % 8) * 2.0**30],
                    [t0 + steps, "tpu.hbm.total_bytes", chip, 16 * 2.0**30],
                    [t0 + steps, "tpu.duty_cycle_pct", chip, 60.0 + (host * 7 + chip) % 40],
                ]
            batch = Batch(
                stream=f"{run_id}-{host}",
                seq=0,
                run={
                    "run_id": run_id,
                    "job": run_id,
                    "host": host,
                    "attrs": {"hostname": f"t1v-n-ab-w-{host}"},
                },
                steps=rows,
                metrics=metrics,
            )
            job_id = ingest(s, who, batch).job_id
    return job_id
