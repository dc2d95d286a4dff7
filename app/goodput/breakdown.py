"""Where one attempt's wall time went: pure functions from facts to seconds per cause.

The attempt's interval ``[start, end]`` is cut into pieces and every piece goes to exactly one
cause, so the parts add up to the total by construction:

- before the first step (its input wait excluded): ``startup``, less the restore and other phases
  that ran there;
- the stepping window, bucket by bucket of step rollups (one host: hosts step together, and wall
  time counts once): each bucket's wall interval is its phases, its input waits, its step time and
  the gap left over. Step time beyond the steady step time in the first step and in recompiles
  (a step over ``RECOMPILE_FACTOR`` x steady) is ``compile``; a gap far beyond the job's usual
  gap between steps is a ``stall``; the usual gap is ``other``;
- after the last step: phases, then for an attempt that died the step it was in (``lost_work``)
  or a hang (``stall``); for one that finished, shutdown (``other``);
- ``lost_work`` also takes the productive time of the steps after the step the next attempt
  resumed from (they are done again).

Where the framework timed its compilations (``compile`` events: JAX's trace, lowering and backend
compile), those intervals are ``compile`` and the long-step guess above is not made.
Checkpoint saves and restores are ``checkpoint``; a ``compile`` phase is ``compile``; any other
phase (``eval``, ...) is ``other`` and is listed by name in ``phases``.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

RECOMPILE_FACTOR = 4.0  # a step this many times the steady step time (and 0.5 s more) recompiled
RECOMPILE_MIN_EXTRA_S = 0.5
STALL_FACTOR = 10.0  # a gap beyond the usual one by this many steady steps (and 2 s) is a stall
STALL_MIN_S = 2.0
CAUSES = ("startup", "compile", "input", "checkpoint", "stall", "lost_work", "idle", "other")

Interval = tuple[float, float]


@dataclass
class Bucket:
    """One rollup bucket of the reference host: ``first`` is the bucket's first step number."""

    first: int
    n: int
    sum_d: float
    sum_w: float
    max_d: float
    max_step: int
    last_ts: float


@dataclass
class AttemptFacts:
    """What the breakdown needs of one attempt (``goodput/facts.py`` loads it)."""

    job_id: int
    start: float
    end: float
    outcome: str  # running | succeeded | failed | lost
    first_step: tuple | None = None  # (step, end ts, duration, input wait)
    last_step: int | None = None
    buckets: list[Bucket] = field(default_factory=list)
    width: int = 16  # steps per bucket
    steady: float | None = None  # the steady step time, seconds
    saving: list[Interval] = field(default_factory=list)  # checkpoint saves and restores, merged
    compiling: list[Interval] = field(default_factory=list)  # compile phases and timed compilations
    # The framework timed its compilations (JAX): those are the compile share, and long steps are
    # no longer taken for compilations.
    measured_compile: bool = False
    phases: dict[str, list[Interval]] = field(default_factory=dict)  # any other phase, by name
    saves: list[tuple[float, int]] = field(default_factory=list)  # (ts, step) of checkpoint saves
    restores: list[tuple[float, int]] = field(default_factory=list)  # (ts, step) resumed from
    host: int | None = None  # the reference host the buckets are of

    @property
    def died(self) -> bool:
        return self.outcome in ("failed", "lost")


@dataclass
class Breakdown:
    total_s: float
    productive_s: float
    badput_s: dict[str, float]
    phases_s: dict[str, float] = field(default_factory=dict)
    steady_step_s: float | None = None
    steps: int = 0
    productive_steps: int = 0
    lost_steps: int = 0
    resumed_from: int | None = None  # the step this attempt restored
    lost_after: int | None = None  # steps after this one were done again
    stalls: int = 0

    @property
    def goodput(self) -> float | None:
        return self.productive_s / self.total_s if self.total_s > 0 else None


def merge(intervals: list[Interval]) -> list[Interval]:
    """Sorted, non-overlapping union of ``intervals``.

    >>> merge([(3, 4), (1, 2), (1.5, 3.5)])
    [(1, 4)]
    """
    out: list[list[float]] = []
    for a, b in sorted(i for i in intervals if i[1] > i[0]):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def subtract(intervals: list[Interval], cut: list[Interval]) -> list[Interval]:
    """``intervals`` less ``cut`` (both merged)."""
    out = []
    for a, b in intervals:
        pieces = [(a, b)]
        for c, d in cut:
            pieces = [p for x, y in pieces for p in ((x, min(y, c)), (max(x, d), y)) if p[1] > p[0]]
        out.extend(pieces)
    return out


def overlap(intervals: list[Interval], lo: float, hi: float) -> float:
    """Seconds of ``intervals`` (merged) inside ``(lo, hi]``."""
    if hi <= lo:
        return 0.0
    return sum(max(0.0, min(b, hi) - max(a, lo)) for a, b in intervals if b > lo and a < hi)


class _Window:
    """The three kinds of phase time, measured over any interval."""

    def __init__(self, f: AttemptFacts) -> None:
        self.saving = merge(f.saving)
        self.compiling = subtract(merge(f.compiling), self.saving)
        taken = merge(self.saving + self.compiling)
        self.named = {k: subtract(merge(v), taken) for k, v in f.phases.items()}
        self.other = merge([i for v in self.named.values() for i in v])

    def split(self, lo: float, hi: float) -> tuple[float, float, float]:
        return overlap(self.saving, lo, hi), overlap(self.compiling, lo, hi), overlap(self.other, lo, hi)


def steady_from_buckets(buckets: list[Bucket]) -> float | None:
    means = [b.sum_d / b.n for b in buckets if b.n]
    return statistics.median(means) if means else None


def breakdown(f: AttemptFacts, lost_after: int | None = None, boundary: tuple | None = None) -> Breakdown:
    """Seconds per cause of attempt ``f``. ``lost_after``: the steps after this one are lost
    (the attempt died and the next one resumed there); ``boundary``: ``(count, sum of durations)``
    of the lost steps inside the bucket that holds ``lost_after`` (raw steps), when known."""
    total = max(0.0, f.end - f.start)
    bad = dict.fromkeys(CAUSES, 0.0)
    win = _Window(f)
    phases_s: dict[str, float] = {}

    def phase_time(lo: float, hi: float) -> float:
        saving, compiling, other = win.split(lo, hi)
        bad["checkpoint"] += saving
        bad["compile"] += compiling
        bad["other"] += other
        for name, iv in win.named.items():
            phases_s[name] = phases_s.get(name, 0.0) + overlap(iv, lo, hi)
        return saving + compiling + other

    if f.first_step is None or not f.buckets:
        used = phase_time(f.start, f.end)
        bad["startup"] += max(0.0, total - used)
        return _done(f, total, 0.0, bad, phases_s, lost_after)

    _, first_end, first_d, first_w = f.first_step
    steady = f.steady or steady_from_buckets(f.buckets) or first_d
    window_lo = max(f.start, first_end - first_d - first_w)
    used = phase_time(f.start, window_lo)
    bad["startup"] += max(0.0, window_lo - f.start - used)

    recompile_at = max(RECOMPILE_FACTOR * steady, steady + RECOMPILE_MIN_EXTRA_S)
    stall_after = max(STALL_MIN_S, STALL_FACTOR * steady)
    rows = []  # (bucket, productive, gap, stall)
    lo = window_lo
    for i, b in enumerate(f.buckets):
        hi = max(lo, min(b.last_ts, f.end))
        elapsed = hi - lo
        nonphase = max(0.0, elapsed - phase_time(lo, hi))
        wait = min(b.sum_w, nonphase)
        step_time = min(b.sum_d, nonphase - wait)
        gap = nonphase - wait - step_time
        absorbed = b.sum_d - step_time  # a phase inside a step (a save from a Keras batch hook)
        excess = 0.0  # compile time guessed from long steps, where the framework timed none
        if i == 0 and not f.measured_compile:
            excess += max(0.0, first_d - steady)
        first_one = i == 0 and b.max_step == f.first_step[0]
        if b.max_d > recompile_at and not first_one and not f.measured_compile:
            excess += b.max_d - steady
        excess = min(step_time, max(0.0, excess - absorbed))
        bad["input"] += wait
        bad["compile"] += excess
        rows.append([b, step_time - excess, gap])
        lo = hi
    usual = statistics.median(r[2] / r[0].n for r in rows if r[0].n) if rows else 0.0
    stalls = 0
    for row in rows:
        b, _, gap = row
        beyond = gap - usual * b.n
        if beyond > stall_after:
            bad["stall"] += beyond
            bad["other"] += gap - beyond
            stalls += 1
        else:
            bad["other"] += gap
    productive = sum(r[1] for r in rows)

    # After the last step: phases, then the step in flight (lost if it died), a hang, or shutdown.
    tail_lo = lo
    rest = max(0.0, f.end - tail_lo - phase_time(tail_lo, f.end))
    if rest > stall_after + steady:
        bad["stall"] += rest
        stalls += 1
    elif f.died:
        bad["lost_work"] += rest
    else:
        bad["other"] += rest

    lost_steps = 0
    if f.died and lost_after is not None:
        lost = 0.0
        for b, prod, _ in rows:
            end_step = b.first + f.width  # exclusive
            if end_step <= lost_after + 1:
                continue
            if b.first > lost_after:
                share, count = 1.0, b.n
            elif boundary is not None and b.sum_d > 0:
                count, dur = boundary
                share = min(1.0, dur / b.sum_d)
            else:
                count = max(0, end_step - 1 - lost_after)
                share = min(1.0, count / b.n) if b.n else 0.0
            lost += prod * share
            lost_steps += count
        lost = min(lost, productive)
        bad["lost_work"] += lost
        productive -= lost
    out = _done(f, total, productive, bad, phases_s, lost_after if f.died else None)
    out.steady_step_s = steady
    out.steps = sum(b.n for b in f.buckets)
    out.lost_steps = lost_steps
    out.productive_steps = max(0, out.steps - lost_steps)
    out.stalls = stalls
    return out


def _done(f, total, productive, bad, phases_s, lost_after) -> Breakdown:
    # Rounding and clock skew (steps stamped past the end) land in "other", so parts add up.
    bad["other"] += total - productive - sum(bad.values())
    return Breakdown(
        total_s=total,
        productive_s=productive,
        badput_s=bad,
        phases_s=phases_s,
        resumed_from=f.restores[0][1] if f.restores else None,
        lost_after=lost_after,
    )


def resume_point(dead: AttemptFacts, following: AttemptFacts | None) -> int:
    """The step after which ``dead``'s work was lost: where the next attempt resumed, else the
    last checkpoint ``dead`` saved, else where the next attempt's step count began, else 0."""
    if following is not None and following.restores:
        return following.restores[0][1]
    if dead.saves:
        return max(step for _, step in dead.saves)
    if following is not None and following.first_step is not None and following.first_step[0] > 1:
        return following.first_step[0] - 1
    return 0
