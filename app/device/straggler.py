"""The host the others wait for, from the device's own account.

When one host of a synchronous slice is slow, every host's step takes as long, so step times name
nobody. The device does: the straggler's TensorCores idle least (the others idle in the collective,
waiting for it), its collective latency is the shortest (it arrives last and waits least), and when
the input is the cause its input wait is the longest. Over the last window, per host:

- busy: mean TensorCore duty cycle over its rounds (and TensorCore idle duration beside it);
- collective: mean p50 of the collective end-to-end latency;
- input wait: mean input wait per step over its recent steps (the step rollups).

A **compute straggler** is the busiest host, ``BUSY_MARGIN`` points above the median of the others,
with its collective latency (where the service reports it) at most ``COLLECTIVE_SHARE`` of theirs.
An **input straggler** waits ``INPUT_RATIO`` times the others' median input wait and at least
``INPUT_SHARE`` of its step. Persistence is the alert's business (app/alerts/straggler.py).

>>> busy = {h: 77.0 for h in range(64)}; busy[17] = 99.0
>>> coll = {h: 2600.0 for h in range(64)}; coll[17] = 400.0
>>> [(s.host, s.kind) for s in compute_stragglers(busy, coll, {})]
[(17, 'compute')]
>>> compute_stragglers({h: 77.0 for h in range(64)}, coll, {})
[]
"""

from __future__ import annotations

import statistics

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.device import catalog, rounds
from tpuwatch.server.device.schemas import StragglerHost
from tpuwatch.server.models import Job, JobHost
from tpuwatch.server.slice.hosts import host_stats

BUSY_MARGIN = 10.0  # duty-cycle points above the others' median
COLLECTIVE_SHARE = 0.8
INPUT_RATIO = 2.0
INPUT_SHARE = 0.05
MIN_HOSTS = 3
COLLECTIVE = catalog.COLLECTIVE + catalog.SEP + "p50"


def _means(found: list[rounds.Round], series: str) -> dict[int, float]:
    sums: dict[int, list[float]] = {}
    for r in found:
        v = rounds.host_value(r.data, series)
        if v is not None:
            sums.setdefault(r.host, []).append(v)
    return {h: sum(v) / len(v) for h, v in sums.items()}


def _others(values: dict[int, float], host: int) -> float | None:
    rest = [v for h, v in values.items() if h != host]
    return statistics.median(rest) if rest else None


def compute_stragglers(
    busy: dict[int, float], collective: dict[int, float], idle: dict[int, float]
) -> list[StragglerHost]:
    if len(busy) < MIN_HOSTS:
        return []
    host = max(busy, key=lambda h: (busy[h], -h))
    others = _others(busy, host)
    if others is None or busy[host] - others < BUSY_MARGIN:
        return []
    coll, coll_others = collective.get(host), _others(collective, host)
    if coll is not None and coll_others and coll > COLLECTIVE_SHARE * coll_others:
        return []  # busiest, yet it waits in the collective as long as the rest: not the one they wait for
    line = f"host {host} is the compute straggler: TensorCores {busy[host]:.0f}% busy"
    line += f", the others {others:.0f}%"
    if coll is not None and coll_others:
        line += f"; collective latency {catalog_fmt(coll)} against {catalog_fmt(coll_others)}"
        line += ": it arrives last"
    if host in idle and (idle_others := _others(idle, host)) is not None:
        line += f"; TensorCore idle {idle[host] * 1000:.3g} ms against {idle_others * 1000:.3g} ms"
    return [
        StragglerHost(
            host=host,
            kind="compute",
            busy=busy[host],
            busy_others=others,
            collective_us=coll,
            collective_others_us=coll_others,
            line=line,
        )
    ]


def input_stragglers(waits: dict[int, float], steps: dict[int, float]) -> list[StragglerHost]:
    if len(waits) < MIN_HOSTS:
        return []
    host = max(waits, key=lambda h: (waits[h], -h))
    others = _others(waits, host) or 0.0
    step = steps.get(host) or 0.0
    if waits[host] < INPUT_RATIO * max(others, 1e-6) or waits[host] < INPUT_SHARE * step:
        return []
    line = (
        f"host {host} is the input straggler: input wait {waits[host]:.3f} s a step against "
        f"{others:.3f} s on the others"
    )
    found = StragglerHost(host=host, kind="input", input_wait=waits[host], input_wait_others=others)
    found.line = line
    return [found]


def catalog_fmt(us: float) -> str:
    return f"{us / 1000:.3g} ms" if us >= 1000 else f"{us:.3g} µs"


def stragglers(session: Session, job: Job, now: float, window: float) -> list[StragglerHost]:
    """The job's stragglers over the ``window`` seconds before ``now`` (input first: its cause is
    the plainer one)."""
    hosts = session.scalar(select(func.count()).select_from(JobHost).where(JobHost.job_id == job.id))
    if (hosts or 0) < MIN_HOSTS:  # most jobs of a fleet: one host, nobody to compare with
        return []
    found = rounds.load(session, job.id, until=now, window=window)
    stats = host_stats(session, job)
    waits = {s.host_index: s.input_wait for s in stats if s.input_wait is not None}
    steps = {s.host_index: s.step_time for s in stats if s.step_time}
    out = input_stragglers(waits, steps)
    if found:
        busy = _means(found, catalog.DUTY)
        out += [
            s
            for s in compute_stragglers(busy, _means(found, COLLECTIVE), _means(found, catalog.IDLE))
            if s.host not in {o.host for o in out}
        ]
    return out
