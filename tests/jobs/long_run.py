"""A long live run stored in seconds: what a job looks like after a million steps and a ``db prune``.

Its first step and its last 2,048 steps (the figures' window) go through the ingest service as
raw steps, like any batch; the steps between exist as step rollups only (written by the rollups'
own merge, ``series.rollups``), as after ``tpuwatch db prune --raw-older-than`` deleted their raw
rows; the hosts' step counters count them all. A loss every 10 steps and HBM every 1,000 steps go
in by bulk insert. 1,000,000 steps take ~10 s here, against minutes through ingest.
"""

from __future__ import annotations

import random
import time

from sqlalchemy import update

from tpuwatch.server.db import bulk_insert, make_engine, make_sessionmaker, transaction
from tpuwatch.server.ingest.schemas import Batch, RunInfo
from tpuwatch.server.ingest.service import METRIC_COLUMNS, ingest
from tpuwatch.server.models import Job, JobHost
from tpuwatch.server.series.rollups import rollup_rows, write_rows
from tpuwatch.server.tokens.service import authenticate

STEP_S = 0.1
TAIL = 2048
CHUNK = 100_000


def seed(db_url: str, token: str, steps: int, run_id: str, log_lines: int = 300) -> int:
    """Store a live run of ``steps`` steps for ``token``'s project; returns its job id."""
    engine = make_engine(db_url)
    sessions = make_sessionmaker(engine)
    with transaction(sessions) as s:
        principal = authenticate(s, token)
    rng = random.Random(steps)
    t0 = time.time() - steps * STEP_S - 5
    attrs = {"run_name": "lr 3e-4", "commit": "0123456789ab", "dirty": False}
    run = RunInfo.model_construct(run_id=run_id, job="gemma-7b-v5e", host=0, attrs=attrs)
    seq = 0

    def put(**parts) -> int:
        nonlocal seq
        body = dict(steps=[], events=[], metrics=[], logs=[], dropped=0)
        body.update(parts)
        b = Batch.model_construct(v=1, stream=f"{run_id}-0", seq=seq, part="", run=run, sent_at=None, **body)
        seq += 1
        with transaction(sessions) as s:
            return ingest(s, principal, b).job_id

    def row(i: int) -> tuple:
        return (i, t0 + i * STEP_S, (30.0 if i == 1 else STEP_S + rng.random() * 0.01), 0.003)

    start = [(t0, "start", "python train.py --config gemma.yaml", {"argv": ["python", "train.py"]})]
    info = [(t0, "model_info", "", {"global_batch_size": 256, "flops_per_step": 1e15, "peak_flops": 4e15})]
    job_id = put(steps=[row(1)], events=start + info)
    middle = range(2, max(2, steps - TAIL + 1))
    with transaction(sessions) as s:
        for k in range(middle.start, middle.stop, CHUNK):
            part = [row(i) for i in range(k, min(middle.stop, k + CHUNK))]
            write_rows(s, rollup_rows(job_id, 0, part))
        n = len(middle)
        s.execute(update(JobHost).where(JobHost.job_id == job_id).values(steps=JobHost.steps + n))
        s.execute(update(Job).where(Job.id == job_id).values(steps=Job.steps + n))
        metrics = [
            (job_id, 0, None, "loss", t0 + i * STEP_S, 3.0 / (1 + i / 1e4), i)
            for i in range(10, steps + 1, 10)
        ]
        for c in (0, 1):
            metrics += [
                (job_id, 0, c, name, t0 + i * STEP_S, value, None)
                for i in range(1000, steps + 1, 1000)
                for name, value in (("tpu.hbm.used_bytes", 12e9 + c * 1e8), ("tpu.hbm.total_bytes", 16e9))
            ]
        bulk_insert(s, "metrics", METRIC_COLUMNS, metrics)
    tail = [row(i) for i in range(max(2, steps - TAIL + 1), steps + 1)]
    logs = [
        (t0 + steps * STEP_S, k, "stdout", "train loss 0.3012 lr 3e-4 tokens/s 81234")
        for k in range(1, log_lines + 1)
    ]
    put(steps=tail, logs=logs)
    engine.dispose()
    return job_id
