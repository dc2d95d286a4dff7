"""MFU of a job: model FLOPs per step (the agent's ``model_info``), the wall time of a step (its
duration and its input wait), and the peak of the job's chips (given on the agent, or from the
accelerator type the sidecar learned). The job's figure itself is ``jobs/figures.py``'s."""

from __future__ import annotations

from sqlalchemy.orm import Session

from tpuwatch import mfu as chips
from tpuwatch.server.goodput.breakdown import Bucket
from tpuwatch.server.goodput.schemas import Mfu, MfuPoint
from tpuwatch.server.jobs.figures import job_figures
from tpuwatch.server.models import Job

MAX_POINTS = 300


def attempt_mfu(session: Session, job: Job, outcome: str) -> Mfu:
    """The attempt's MFU as the job's figures give it (one formula for every page)."""
    f = job_figures(session, job, outcome)
    if f.flops_per_step is None:
        return Mfu()
    return Mfu(
        flops_per_step=f.flops_per_step,
        peak_flops=f.peak_flops,
        peak_source=f.peak_source,
        accelerator_type=f.accelerator_type,
        step_time_s=f.step_wall_s,
        mfu=f.mfu,
        warning=f.mfu_warning,
    )


def mfu_series(buckets: list[Bucket], m: Mfu, first_step: int | None) -> list[MfuPoint]:
    """MFU over time: one point per group of rollup buckets (the mean wall time of a step in the
    group, its input wait included, as the job's figure), at most ``MAX_POINTS``; the bucket
    holding the first step (compilation) is left out."""
    if not m.flops_per_step or not m.peak_flops:
        return []
    rows = buckets[1:] if first_step is not None and len(buckets) > 1 else buckets
    group = max(1, -(-len(rows) // MAX_POINTS))
    out = []
    for k in range(0, len(rows), group):
        part = rows[k : k + group]
        n = sum(b.n for b in part)
        d = sum(b.sum_d + b.sum_w for b in part)
        if n and d > 0:
            value = chips.mfu(m.flops_per_step, d / n, m.peak_flops)
            out.append(MfuPoint(ts=part[-1].last_ts, step=part[-1].first, mfu=value))
    return out
