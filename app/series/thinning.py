"""Which raw steps are worth a row: storage that grows with information, not with host count.

In synchronous training every host of a slice steps together, so the per-step rows of host 700 say
what host 0's say. Full rows are kept for the first ``FULL_STEP_HOSTS`` hosts (the reference hosts
every single-host reader uses: stall gaps, speed, goodput, perf cards) and, for every other host,
only the steps that carry information: a step time or input wait outside the job's usual spread, or
every step of a batch from a host that has fallen behind the others. Every step of every host still
lands in ``step_rollups`` (count, sum, min, max, input wait per 16-step bucket) and in the host's
counters (``job_hosts.steps``, ``last_step``, ``last_step_at``), which is what the slice pages and
the which-host answers read. Decided at ingest, so agents stay unchanged.

>>> ref = Reference(step_time=1.0, input_wait=0.01, last_step=100, last_step_at=1000.0)
>>> rows = [(99, 999.0, 1.0, 0.01), (100, 1000.0, 2.0, 0.01), (101, 1001.0, 1.0, 0.5)]
>>> [r[0] for r in keep_rows(3, rows, ref)], [r[0] for r in keep_rows(20, rows, ref)]
([99, 100, 101], [100, 101])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

FULL_STEP_HOSTS = 8  # hosts 0..7 keep every step: jobs of up to 8 hosts store exactly as before
SLOW = 1.5  # a step this many times the usual step time (or 1/SLOW of it) is a deviation
WAIT_RATIO = 3.0  # input wait this many times the usual one...
WAIT_SHARE = 0.05  # ...and at least this share of the usual step time is a deviation
BEHIND_STEPS = 2  # a host this many steps behind where the job was at the same moment


@dataclass(frozen=True)
class Reference:
    """The job's usual step (from the reference hosts) and where it was, before this batch."""

    step_time: float | None
    input_wait: float | None
    last_step: int | None
    last_step_at: float | None


def keeps_every_step(host: int) -> bool:
    return host < FULL_STEP_HOSTS


def behind(rows: Sequence[Sequence], ref: Reference) -> bool:
    """True when the batch's newest step is ``BEHIND_STEPS`` short of where the job was then.

    The job's step at the batch's time is estimated from its newest step and its usual step time
    (a step time, not an interval: the estimate errs towards "not behind")."""
    if ref.last_step is None or ref.last_step_at is None or not ref.step_time:
        return False
    step, ts = max((r[0], r[1]) for r in rows)
    expected = ref.last_step - max(0.0, ref.last_step_at - ts) / ref.step_time
    return step < expected - BEHIND_STEPS


def keep_rows(host: int, rows: Sequence[Sequence], ref: Reference) -> Sequence[Sequence]:
    """The rows of ``(step, ts, duration, input wait)`` from ``host`` that get a raw row."""
    if keeps_every_step(host) or not ref.step_time or not rows or behind(rows, ref):
        return rows
    usual = ref.step_time
    hi, lo = usual * SLOW, usual / SLOW
    base_wait = ref.input_wait or 0.0
    wait_hi = max(WAIT_RATIO * base_wait, base_wait + WAIT_SHARE * usual)
    return [r for r in rows if r[2] > hi or r[2] < lo or r[3] > wait_hi]
