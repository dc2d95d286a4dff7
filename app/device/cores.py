"""Where a hung slice's cores are: the hosts grouped by their cores' place, the odd ones named.

In synchronous training a hang stops every host on the same step and their Python stacks look
alike; the cores' state (``core_state`` events, read on the server's ask) does not. Each host's
place is its TensorCores' most common (program, launch, HLO location, queue empty). The largest
group is where the slice waits (an all-reduce, as a rule); the hosts elsewhere are the answer, each
with the innermost frame of its Python stack (``stacks`` events) beside it.

>>> g = group_hosts({h: [{"program": "9a", "launch": 4, "hlo": "all-reduce.3", "queued": 1}]
...                  for h in range(1024)})
>>> lines(g, hosts=1024)
['all 1,024 hosts wait in `all-reduce.3` (program 9a, launch 4): the whole slice is in that op']
>>> odd = {h: [{"program": "9a", "launch": 4, "hlo": "all-reduce.3", "queued": 1}] for h in range(1024)}
>>> odd[17] = [{"program": "", "launch": 4, "hlo": "", "queued": 0}]
>>> lines(group_hosts(odd), hosts=1024, stacks={17: 'File "train.py", line 40 in next'})
['host 17: cores idle, queue empty, Python in `next` (train.py:40); 1,023 hosts wait in `all-reduce.3`']
"""

from __future__ import annotations

import re
from collections import Counter

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.device.asks import last_ask
from tpuwatch.server.device.schemas import CoreGroup, CoreView
from tpuwatch.server.models import Event, JobHost
from tpuwatch.server.slice.hosts import latest_stacks
from tpuwatch.wire import Kind

NAMED_GROUPS = 3  # minority groups spelled out; the rest are counted
NAMED_HOSTS = 8  # hosts listed by number in one group
SETTLE_S = 10.0  # an ask this old is read even if some hosts never answered
_FRAME = re.compile(r'File "([^"]*)", line (\d+) in (.+)$|^(\S+) \(([^:()]+):(\d+)\)')


def core_place(core: dict) -> tuple:
    return (
        str(core.get("program") or ""),
        core.get("launch"),
        str(core.get("hlo") or ""),
        not core.get("queued"),
    )


def host_place(cores: list[dict]) -> tuple:
    """The place most of a host's TensorCores are at (its cores agree, as a rule)."""
    tensor = [c for c in cores if str(c.get("type", "TENSOR_CORE")) == "TENSOR_CORE"] or cores
    return Counter(core_place(c) for c in tensor).most_common(1)[0][0] if tensor else ("", None, "", True)


def group_hosts(states: dict[int, list[dict]]) -> list[CoreGroup]:
    """Hosts by place, largest group first (ties: the lower host first)."""
    by_place: dict[tuple, list[int]] = {}
    for host in sorted(states):
        by_place.setdefault(host_place(states[host]), []).append(host)
    groups = [
        CoreGroup(
            hosts=hosts,
            place=describe(place),
            program=place[0],
            launch=place[1],
            hlo=place[2],
            queue_empty=place[3],
        )
        for place, hosts in by_place.items()
    ]
    return sorted(groups, key=lambda g: (-len(g.hosts), g.hosts[0]))


def describe(place: tuple) -> str:
    program, _, hlo, empty = place
    if hlo:
        return f"in `{hlo}`"
    if not program and empty:
        return "cores idle, queue empty"
    return "cores idle, queue empty" if empty else "cores idle, programs queued"


def frame_words(stack: str | None) -> str:
    """``Python in `fn` (file.py:40)`` from a stack excerpt's innermost frame; '' without one."""
    if not stack:
        return ""
    first = stack.strip().splitlines()[0].split(" ← ")[0].strip()  # stack_excerpt joins frames so
    m = _FRAME.search(first)
    if not m:
        return f"Python at {first[:120]}"
    if m.group(1):
        path, line, fn = m.group(1), m.group(2), m.group(3)
    else:
        fn, path, line = m.group(4), m.group(5), m.group(6)
    return f"Python in `{fn.strip()}` ({path.rsplit('/', 1)[-1]}:{line})"


def _hosts_words(hosts: list[int]) -> str:
    if len(hosts) == 1:
        return f"host {hosts[0]}"
    named = ", ".join(str(h) for h in hosts[:NAMED_HOSTS])
    more = f" and {len(hosts) - NAMED_HOSTS:,} more" if len(hosts) > NAMED_HOSTS else ""
    return f"hosts {named}{more} ({len(hosts):,})"


def lines(groups: list[CoreGroup], hosts: int, stacks: dict[int, str] | None = None) -> list[str]:
    """What the stall alert, the job page and the post-mortem say about the cores."""
    if not groups:
        return []
    stacks = stacks or {}
    answered = sum(len(g.hosts) for g in groups)
    silent = f" ({hosts - answered:,} of {hosts:,} hosts sent no core state)" if hosts > answered else ""
    top = groups[0]
    if len(groups) == 1:
        ident = f" (program {top.program}, launch {top.launch})" if top.program else ""
        if top.hlo:
            said = f"all {answered:,} hosts wait in `{top.hlo}`{ident}"
            return [f"{said}: the whole slice is in that op{silent}"]
        return [f"all {answered:,} hosts: {top.place}{silent}"]
    if len(groups[1].hosts) == len(top.hosts):  # no majority: say how the slice is split
        parts = [f"{_hosts_words(g.hosts)}: {g.place}" for g in groups[:NAMED_GROUPS]]
        return [f"hosts split by place: {'; '.join(parts)}{silent}"]
    out = []
    for g in groups[1 : 1 + NAMED_GROUPS]:
        said = f"{_hosts_words(g.hosts)}: {g.place}"
        if g.program and top.program and g.program != top.program:
            said += f" (program {g.program}, not {top.program})"
        elif g.launch != top.launch and g.hlo:
            said += f" (launch {g.launch}, not {top.launch})"
        words = frame_words(stacks.get(g.hosts[0]))
        out.append(f"{said}, {words}" if words else said)
    rest = sum(len(g.hosts) for g in groups[1 + NAMED_GROUPS :])
    if rest:
        out.append(f"{rest:,} more hosts elsewhere")
    wait = f"wait in `{top.hlo}`" if top.hlo else f"are at: {top.place}"
    out[-1] += f"; {len(top.hosts):,} hosts {wait}{silent}"
    return ["; ".join(out)] if len(out) == 1 else out


def core_view(session: Session, job_id: int, now: float, settle: bool = True) -> CoreView | None:
    """The cores' state since the job's last ask (None when nothing was asked or none came yet,
    or, with ``settle``, while hosts are still answering a fresh ask)."""
    asked = last_ask(session, job_id)
    if asked is None:
        return None
    rows = session.execute(
        select(Event.host_index, Event.ts, Event.data)
        .where(Event.job_id == job_id, Event.kind == Kind.CORE_STATE, Event.ts >= asked.asked_at - 1.0)
        .order_by(Event.ts)
    ).all()
    states: dict[int, list[dict]] = {}
    read_at = None
    for host, ts, data in rows:
        cores = (data or {}).get("cores") if isinstance(data, dict) else None
        if isinstance(cores, list) and cores and all(isinstance(c, dict) for c in cores):
            states[host] = cores
            read_at = ts
    total = session.scalar(select(func.count()).select_from(JobHost).where(JobHost.job_id == job_id)) or 0
    if not states or (settle and len(states) < total and now - asked.asked_at < SETTLE_S):
        return CoreView(asked_at=asked.asked_at, hosts=len(states)) if not settle else None
    groups = group_hosts(states)
    named = [g.hosts[0] for g in groups[1 : 1 + NAMED_GROUPS]] if len(groups) > 1 else []
    stacks = latest_stacks(session, job_id, named)
    for g in groups:
        g.stack = stacks.get(g.hosts[0])
    return CoreView(
        asked_at=asked.asked_at,
        read_at=read_at,
        hosts=len(states),
        groups=groups,
        lines=lines(groups, max(total, len(states)), stacks),
    )
