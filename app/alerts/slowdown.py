"""Slowdown and floor rules: pure functions over facts, like ``rules.py`` (which calls them).

A slowdown is the median step interval (one step's end to the next: compute, input wait and the
gap between steps) over the last ``slowdown_window_seconds`` rising above
``max(slowdown_ratio x usual, usual + slowdown_mad_k x MAD)``, where "usual" is the job's own
median interval over its whole run (robust: the compile step and checkpoints barely move it). The
window must hold ``slowdown_min_steps`` steps, so a long first step (compilation) or a pause with
no steps at all (a checkpoint, which is a phase and the stall rule's business) never looks like one;
steps overlapping a phase are left out. It resolves when the window's median is back under the
threshold. The verdict says when the slow stretch began and what changed with it.
"""

from __future__ import annotations

import datetime as dt
import statistics
from dataclasses import dataclass, field

RECOMPILE_FACTOR = 4.0  # an interval this many times the usual one inside the window
HOST_SKEW = 1.2  # one host's median step time this far above the others'
WAIT_SHARE = 0.5  # input wait explains the slowdown when it grew by half the interval's growth
FAST_RUN = 3  # this many usual-speed steps in a row end a slow stretch (looking back)


@dataclass
class SpeedFacts:
    """The job's usual step interval (median and MAD) and its recent steps on one host."""

    baseline: float  # usual seconds from one step's end to the next
    spread: float  # MAD of the same
    base_wait: float = 0.0  # usual input wait per step
    steps: list[tuple[float, float, float]] = field(default_factory=list)  # (end ts, interval, wait)
    hosts: dict[int, float] = field(default_factory=dict)  # recent median step time per host
    host_lines: list[str] = field(default_factory=list)  # the slowest hosts, input- or compute-bound
    hbm_before: float | None = None  # peak HBM share before the slow stretch, and during it
    hbm_after: float | None = None
    excluded: list[tuple[float, float]] = field(default_factory=list)  # phase intervals


@dataclass
class FloorFacts:
    goodput: float | None = None
    mfu: float | None = None
    goodput_floor: float | None = None
    mfu_floor: float | None = None


def threshold(baseline: float, spread: float, settings) -> float:
    """>>> from types import SimpleNamespace as S
    >>> threshold(1.0, 0.01, S(slowdown_ratio=1.5, slowdown_mad_k=6.0))
    1.5
    """
    return max(settings.slowdown_ratio * baseline, baseline + settings.slowdown_mad_k * spread)


def window(sf: SpeedFacts, now: float, settings) -> list[tuple[float, float, float]]:
    """Steps ending in the window, those overlapping a phase left out. The window grows for slow
    jobs so that it always has room for ``slowdown_min_steps`` slow steps."""
    span = max(
        settings.slowdown_window_seconds,
        settings.slowdown_min_steps * settings.slowdown_ratio * sf.baseline * 2,
    )
    out = []
    for ts, interval, wait in sf.steps:
        if ts < now - span or ts > now:
            continue
        if any(ts - interval < b and ts > a for a, b in sf.excluded):
            continue
        out.append((ts, interval, wait))
    return out


def is_slow(sf: SpeedFacts | None, now: float, settings) -> bool:
    if sf is None or sf.baseline <= 0:
        return False
    recent = window(sf, now, settings)
    if len(recent) < settings.slowdown_min_steps:
        return False
    return statistics.median(r[1] for r in recent) > threshold(sf.baseline, sf.spread, settings)


def slow_since(sf: SpeedFacts, limit: float) -> float | None:
    """Start of the current slow stretch: looking back from the newest step, the step after the
    last ``FAST_RUN`` usual-speed steps in a row."""
    fast = 0
    since = None
    for ts, interval, _ in reversed(sf.steps):
        if interval > limit:
            fast = 0
            since = ts - interval
        else:
            fast += 1
            if fast >= FAST_RUN:
                break
    return since


def what_changed(sf: SpeedFacts, recent: list, since: float | None) -> tuple[list[str], dict]:
    """Sentences (and their data) on what moved with the slowdown: input wait, one host, HBM, a
    recompile."""
    lines, data = [], {}
    med = statistics.median(r[1] for r in recent)
    wait = statistics.median(r[2] for r in recent)
    if wait - sf.base_wait >= WAIT_SHARE * (med - sf.baseline) and wait > sf.base_wait:
        lines.append(f"input wait rose from {_s(sf.base_wait)} to {_s(wait)} a step: input-bound")
        data["input_wait"] = [sf.base_wait, wait]
    if sf.host_lines:
        lines.extend(sf.host_lines)
    elif len(sf.hosts) > 1:
        host, worst = max(sf.hosts.items(), key=lambda kv: kv[1])
        others = statistics.median(v for h, v in sf.hosts.items() if h != host)
        if others and worst > HOST_SKEW * others:
            lines.append(f"host {host} is slowest: {_s(worst)} a step, {worst / others:.1f}x the others")
            data["host"] = host
    if sf.hbm_before is not None and sf.hbm_after is not None and sf.hbm_after > sf.hbm_before + 0.05:
        lines.append(f"HBM use rose from {sf.hbm_before:.0%} to {sf.hbm_after:.0%} of the chip")
        data["hbm"] = [sf.hbm_before, sf.hbm_after]
    long = [
        r for r in sf.steps if since is not None and r[0] >= since and r[1] > RECOMPILE_FACTOR * sf.baseline
    ]
    if long:
        ts, interval, _ = long[0]
        lines.append(f"a {_s(interval)} step at {_clock(ts)}: a recompile?")
        data["recompile_at"] = ts
    return lines, data


def judge_slowdown(sf: SpeedFacts | None, now: float, settings) -> tuple[str, str, dict] | None:
    """("slowdown", summary, details) while the job runs well below its usual speed, else None."""
    if not is_slow(sf, now, settings):
        return None
    recent = window(sf, now, settings)
    med = statistics.median(r[1] for r in recent)
    limit = threshold(sf.baseline, sf.spread, settings)
    since = slow_since(sf, limit)
    began = f" since {_clock(since)}" if since is not None else ""
    summary = f"steps take {_s(med)}, {med / sf.baseline:.1f}x the job's usual {_s(sf.baseline)}{began}"
    lines, data = what_changed(sf, recent, since)
    details = {"step_interval_s": med, "usual_s": sf.baseline, "threshold_s": limit, "since": since, **data}
    return "slowdown", "\n".join([summary, *lines]), details


def judge_floors(ff: FloorFacts | None) -> tuple[str, str, dict] | None:
    """("low_goodput" | "low_mfu", summary, details) under a project's floor, else None."""
    if ff is None:
        return None
    if ff.goodput_floor is not None and ff.goodput is not None and ff.goodput < ff.goodput_floor:
        summary = f"goodput {ff.goodput:.0%} is under the project's floor of {ff.goodput_floor:.0%}"
        return "low_goodput", summary, {"goodput": ff.goodput, "floor": ff.goodput_floor}
    if ff.mfu_floor is not None and ff.mfu is not None and ff.mfu < ff.mfu_floor:
        summary = f"MFU {ff.mfu:.1%} is under the project's floor of {ff.mfu_floor:.1%}"
        return "low_mfu", summary, {"mfu": ff.mfu, "floor": ff.mfu_floor}
    return None


def _s(v: float) -> str:
    return f"{v * 1000:.0f} ms" if v < 1 else f"{v:.2f} s"


def _clock(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%H:%M:%S UTC")
