"""What MFU needs besides the step time: the model FLOPs of one step (the agent's ``model_info``)
and the peak FLOP/s of the job's chips (given on the agent, or from the accelerator type the
sidecar learned)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch import mfu as chips
from tpuwatch.server.models import JobHost
from tpuwatch.wire import Attr

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
