"""Which host: the hosts of a stalled slice that stopped first (last step, last heartbeat, the stacks
captured there), and the slowest hosts of a slow one, each marked input-bound or compute-bound.

Read from what every host keeps whole whatever the storage thinning: ``job_hosts`` (last step,
last seen) and the finest step rollups (every step of every host), so a 1,024-host slice answers
with two indexed queries.
"""

from __future__ import annotations

import datetime as dt
import statistics

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from tpuwatch.server.jobs.stacks import main_frames
from tpuwatch.server.models import LEVEL_WIDTHS, Event, Job, JobHost, StepRollup
from tpuwatch.server.slice.schemas import HostStat, StoppedHost, WhichHost
from tpuwatch.wire import Kind

RECENT_STEPS = 64  # the window a host's recent step time is taken over
SLOW_HOST = 1.2  # a host this many times the median step time of all hosts is slow
INPUT_SHARE = 0.2  # input wait this share of its step time makes a host input-bound
SILENT_S = 60.0  # a heartbeat this much older than the median host's is silent
NAMED = 3  # hosts named in a sentence


def _hosts(session: Session, job_id: int):
    return session.execute(
        select(
            JobHost.host_index,
            JobHost.hostname,
            JobHost.steps,
            JobHost.last_step,
            JobHost.last_step_at,
            JobHost.last_seen_at,
            JobHost.exited,
            JobHost.step_time_p50,
        )
        .where(JobHost.job_id == job_id)
        .order_by(JobHost.host_index)
    ).all()


def host_stats(session: Session, job: Job, recent: int = RECENT_STEPS) -> list[HostStat]:
    """Every host with its mean step time and input wait over the job's last ``recent`` steps (from
    the finest rollups; a host with none there, one that stopped, falls back on its last batch)."""
    rows = _hosts(session, job.id)
    if not rows:
        return []
    width = LEVEL_WIDTHS[0]
    lo = max(0, (job.last_step or 0) - recent)
    lo -= lo % width
    agg = {
        h: (n, d, w)
        for h, n, d, w in session.execute(
            select(
                StepRollup.host_index,
                func.sum(StepRollup.n),
                func.sum(StepRollup.sum_duration),
                func.sum(StepRollup.sum_wait),
            )
            .where(
                StepRollup.job_id == job.id,
                StepRollup.level == 0,
                StepRollup.host_index.in_(bindparam("hosts", expanding=True)),
                StepRollup.bucket >= lo,
            )
            .group_by(StepRollup.host_index),
            {"hosts": [r.host_index for r in rows]},
        )
    }
    out = []
    for r in rows:
        n, d, w = agg.get(r.host_index) or (0, 0.0, 0.0)
        out.append(
            HostStat(
                host_index=r.host_index,
                hostname=r.hostname or "",
                steps=r.steps or 0,
                last_step=r.last_step,
                last_step_at=r.last_step_at,
                last_seen_at=r.last_seen_at,
                exited=bool(r.exited),
                step_time=d / n if n else r.step_time_p50,
                input_wait=w / n if n else None,
            )
        )
    _attribute(out)
    return out


def _attribute(stats: list[HostStat]) -> None:
    """Set ``vs_median`` and, for every host with a step time, what its step time goes to."""
    times = [s.step_time for s in stats if s.step_time]
    waits = [s.input_wait for s in stats if s.input_wait is not None]
    if not times:
        return
    med, med_wait = statistics.median(times), statistics.median(waits) if waits else 0.0
    for s in stats:
        if not s.step_time:
            continue
        s.vs_median = s.step_time / med if med else None
        wait = s.input_wait or 0.0
        excess = s.step_time - med
        # Input-bound: input wait is a large share of its step, or explains most of its excess.
        input_bound = wait >= INPUT_SHARE * s.step_time or (excess > 0 and wait - med_wait >= 0.5 * excess)
        s.bound = "input" if input_bound else "compute"


def slowest(stats: list[HostStat], n: int = NAMED, at_least: float = SLOW_HOST) -> list[HostStat]:
    slow = [s for s in stats if s.vs_median and s.vs_median >= at_least]
    return sorted(slow, key=lambda s: -(s.step_time or 0))[:n]


def stopped_first(session: Session, job: Job, now: float) -> WhichHost:
    """The hosts that stopped first in a stall: those furthest behind (lowest last step, then the
    earliest), the hosts whose heartbeat went silent too, and the stacks captured on them."""
    rows = _hosts(session, job.id)
    out = WhichHost(hosts=len(rows))
    stepped = [r for r in rows if r.last_step is not None]
    if len(rows) < 2 or not stepped:
        return out
    lead = max(r.last_step for r in stepped)
    out.lead_step = lead
    seen = statistics.median(r.last_seen_at for r in rows)
    out.silent = [r.host_index for r in rows if not r.exited and r.last_seen_at < seen - SILENT_S][:20]
    low = min(r.last_step for r in stepped)
    never = [r for r in rows if r.last_step is None]
    if never:
        first = never
    elif low < lead:
        first = sorted((r for r in stepped if r.last_step == low), key=lambda r: r.last_step_at or 0)
    else:  # every host stopped at the same step: a silent heartbeat is what singles one out
        first = [r for r in rows if r.host_index in out.silent]
    stacks = latest_stacks(session, job.id, [r.host_index for r in first[:NAMED]])
    out.stopped_first = [
        StoppedHost(
            host_index=r.host_index,
            hostname=r.hostname or "",
            last_step=r.last_step,
            last_step_at=r.last_step_at,
            last_seen_at=r.last_seen_at,
            behind=lead - (r.last_step if r.last_step is not None else -1),
            stack=stacks.get(r.host_index),
        )
        for r in first[:20]
    ]
    out.lines = stall_lines(out, now)
    return out


def latest_stacks(session: Session, job_id: int, hosts: list[int]) -> dict[int, str]:
    """Each host's latest captured stack, as its innermost main-thread frames."""
    if not hosts:
        return {}
    rows = session.execute(
        select(Event.host_index, Event.message)
        .where(Event.job_id == job_id, Event.kind == Kind.STACKS, Event.host_index.in_(hosts))
        .order_by(Event.ts.desc())
        .limit(10 * len(hosts))
    ).all()
    out: dict[int, str] = {}
    for h, message in rows:
        out.setdefault(h, stack_excerpt(message or ""))
    return out


def stack_excerpt(text: str, frames: int = 3) -> str:
    """The innermost frames of the main thread from a faulthandler or py-spy dump (never one of
    tpuwatch's own threads, whichever the dump lists first).

    >>> stack_excerpt('Thread 0x1 (most recent call first):\\n  File "a.py", line 3 in wait\\n'
    ...               'Current thread 0x2 (most recent call first):\\n  File "t.py", line 9 in <module>\\n')
    'File "t.py", line 9 in <module>'
    """
    return " ← ".join(main_frames(text, frames))[:400]


def stall_lines(w: WhichHost, now: float) -> list[str]:
    """Sentences naming the hosts a stall started on, for alerts and pages."""
    lines = []
    first = w.stopped_first[:NAMED]
    if first and w.lead_step is not None and first[0].behind > 0:
        names = ", ".join(_name(s) for s in first)
        more = f" (and {len(w.stopped_first) - NAMED} more)" if len(w.stopped_first) > NAMED else ""
        s = first[0]
        if s.last_step is None:
            lines.append(f"host {names}{more} never reported a step; the others reached step {w.lead_step}")
        else:
            lines.append(
                f"stopped first: host {names}{more} at step {s.last_step} ({_clock(s.last_step_at)}), "
                f"{s.behind} step{'s' if s.behind != 1 else ''} behind the others"
            )
    elif w.lead_step is not None:
        lines.append(f"all {w.hosts} hosts stopped at step {w.lead_step}")
    if w.silent:
        shown = ", ".join(str(h) for h in w.silent[:NAMED])
        more = f" and {len(w.silent) - NAMED} more" if len(w.silent) > NAMED else ""
        lines.append(f"heartbeat silent on host {shown}{more}: the agent or its VM is gone")
    for s in first:
        if s.stack:
            lines.append(f"stacks on host {s.host_index}: {s.stack}")
    return lines


def slow_lines(slow: list[HostStat]) -> list[str]:
    """Example:

    >>> slow_lines([HostStat(host_index=7, step_time=2.0, input_wait=1.2, vs_median=2.0, bound="input")])
    ['slowest hosts: 7 (2.00 s a step, 2.0x the median; input-bound, input wait 1.20 s)']
    """
    if not slow:
        return []
    parts = []
    for s in slow:
        why = f"input-bound, input wait {_s(s.input_wait or 0)}" if s.bound == "input" else "compute-bound"
        parts.append(f"{s.host_index} ({_s(s.step_time or 0)} a step, {s.vs_median:.1f}x the median; {why})")
    return ["slowest hosts: " + ", ".join(parts)]


def _name(s: StoppedHost) -> str:
    return f"{s.host_index} ({s.hostname})" if s.hostname else str(s.host_index)


def _s(v: float) -> str:
    return f"{v * 1000:.0f} ms" if v < 1 else f"{v:.2f} s"


def _clock(ts: float | None) -> str:
    if ts is None:
        return "-"
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%H:%M:%S UTC")
