"""A slice seeded through the real ingest service: many hosts, one token, batches interleaved."""

from __future__ import annotations

from tests.conftest import make_token
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest.schemas import Batch
from tpuwatch.server.ingest.service import ingest
from tpuwatch.server.tokens.service import authenticate


def principal(sessions):
    token = make_token(sessions)
    with transaction(sessions) as s:
        return authenticate(s, token)


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
