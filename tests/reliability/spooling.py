"""Writing spool folders the way the agent does, for the fault tests."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tpuwatch.spool import SpoolWriter

T0 = time.time() - 86400  # a day ago: inside the window of times ingest accepts


def make_batch(stream: str, seq: int, run_id: str, job: str, steps: int, first_step: int) -> dict:
    return {
        "v": 1,
        "stream": stream,
        "seq": seq,
        "run": {"run_id": run_id, "job": job, "host": 0},
        "steps": [[first_step + i, T0 + first_step + i, 0.01, 0.001] for i in range(steps)],
        "events": [],
        "metrics": [],
    }


def fill_spool(
    directory: Path, batches: int, steps: int, run_id: str = "run-1", job: str = "job", stream: str = "s0"
) -> int:
    """Write ``batches`` batches of ``steps`` steps (one segment each); returns the steps written."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "meta.json").write_text(json.dumps({"run_id": run_id, "job": job, "host": 0}))
    writer = SpoolWriter(directory, stream, rotate_seconds=3600)
    for seq in range(batches):
        payload = json.dumps(make_batch(stream, seq, run_id, job, steps, seq * steps + 1)).encode()
        writer.append(payload, steps)
        writer.rotate()
    return batches * steps
