"""What the job page adds for a job of several hosts: the slice's charts and first page of hosts
(past ``SLICE_HOSTS`` hosts), and which host a stall or slowdown comes from."""

from __future__ import annotations

import time

from sqlalchemy.orm import Session

from tpuwatch.server.models import Job
from tpuwatch.server.slice.hosts import host_stats, slow_lines, slowest, stopped_first
from tpuwatch.server.slice.schemas import HostStat, WhichHost
from tpuwatch.server.slice.service import host_page, is_slice

STOPPED = ("stalled", "lost", "failed")


def which_host(
    session: Session, job: Job, now: float | None = None, stats: list[HostStat] | None = None
) -> WhichHost:
    """Stopped-first hosts while the job is stopped (a live slice's hosts are always a batch or two
    apart: no news), and the slowest hosts whenever one stands out."""
    now = time.time() if now is None else now
    found = stopped_first(session, job, now) if job.status in STOPPED else WhichHost()
    found.slowest = slowest(host_stats(session, job) if stats is None else stats)
    found.lines = found.lines + slow_lines(found.slowest)
    return found


def page_context(session: Session, job: Job, hosts: int) -> dict:
    """Template variables: ``wh`` for any job of several hosts, ``slice`` past ``SLICE_HOSTS``."""
    if hosts < 2:
        return {}
    stats = host_stats(session, job)
    out: dict = {"wh": which_host(session, job, stats=stats)}
    if is_slice(hosts):
        # The slice's charts are fetched as JSON (/api/v1/jobs/{id}/charts/slice): the page stays small.
        first = host_page(session, job, stats=stats)
        out["slice"] = {"hosts": first, "job_id": job.id}
    return out
