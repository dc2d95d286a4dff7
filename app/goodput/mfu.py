"""MFU of a job: model FLOPs per step (the agent's ``model_info``), the wall time of a step (its
duration and its input wait), and the peak of the job's chips (given on the agent, or from the
accelerator type the sidecar learned). The job's figure itself is ``jobs/figures.py``'s."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch import mfu as chips
from tpuwatch.server.goodput.breakdown import Bucket
from tpuwatch.server.goodput.schemas import Mfu, MfuPoint
from tpuwatch.server.models import Job, JobHost
from tpuwatch.wire import Attr

MAX_POINTS = 300
SAMPLE_HOSTS = 64  # hosts whose attributes tell the chips of the job


def flops_per_step(info: list[tuple[int, dict]]) -> float | None:
    """The model FLOPs of one step: the latest ``model_info`` that says, the lowest host first."""
    for _, data in sorted(info, key=lambda r: r[0]):
        value = data.get("flops_per_step")
        if isinstance(value, (int, float)) and value > 0:
            return float(value)
    return None


def job_peak(session: Session, job_id: int, info: list[tuple[int, dict]]) -> tuple:
    """(peak FLOP/s of the whole job, where it came from, accelerator type)."""
    # A slice's hosts have the same chips: the first hosts' attributes speak for all of them, and
    # decoding 1,024 hosts' attributes on every page view would cost more than the rest of it.
    n_hosts = session.scalar(select(func.count()).select_from(JobHost).where(JobHost.job_id == job_id)) or 0
    hosts = session.execute(
        select(JobHost.host_index, JobHost.attrs)
        .where(JobHost.job_id == job_id)
        .order_by(JobHost.host_index)
        .limit(SAMPLE_HOSTS)
    ).all()
    given = {}
    acc = None
    for host, attrs in hosts:
        attrs = attrs or {}
        if isinstance(attrs.get(Attr.PEAK_FLOPS), (int, float)):
            given[host] = float(attrs[Attr.PEAK_FLOPS])
        ident = attrs.get("identity") if isinstance(attrs.get("identity"), dict) else {}
        acc = acc or ident.get("accelerator_type")
    for host, data in info:
        if isinstance(data.get(Attr.PEAK_FLOPS), (int, float)):
            given.setdefault(host, float(data[Attr.PEAK_FLOPS]))
    if given:
        # Each host gives the peak of its own chips; hosts that did not say have the same chips.
        per_host = sum(given.values()) / len(given)
        return per_host * max(n_hosts, len(given)), "given", acc
    peak = chips.peak_flops(acc)
    return (peak, "accelerator type", acc) if peak else (None, None, acc)


def attempt_mfu(session: Session, job: Job, outcome: str) -> Mfu:
    """The attempt's MFU as the job's figures give it (one formula for every page)."""
    from tpuwatch.server.jobs.figures import job_figures

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
