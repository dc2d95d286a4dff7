"""What is wrong with a job, judged from facts alone: pure functions a test can drive with any clock.

Stall detection is progress-based: the next step is expected within a threshold learned from the
job's own recent step intervals, never below a floor, with longer allowances for the first steps
(XLA compilation) and for phases the agent reports as long (checkpoint saves). A hang keeps the
sidecar heartbeating, so silence of steps with live heartbeats is *stalled*; silence of
everything is *lost*.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from tpuwatch.server.alerts import slowdown
from tpuwatch.server.alerts.slowdown import FloorFacts, SpeedFacts
from tpuwatch.server.alerts.straggler import judge_straggler
from tpuwatch.server.settings import Settings

CONDITIONS = (
    "diverged",
    "failed",
    "preempted",
    "lost",
    "unhealthy",
    "stalled",
    "slowdown",
    "low_goodput",
    "low_mfu",
    "straggler",
    "recompiling",
)
# A step interval this many MADs above the median, or this many medians, is no longer noise.
K_MAD = 20.0
M_MEDIAN = 10.0
IDLE_DUTY_CYCLE_PCT = 5.0
PREEMPTED_STATES = ("PREEMPTED", "TERMINATED", "STOPPED", "STOPPING", "DELETING")
UNHEALTHY_STATES = ("REPAIRING", "HIDING", "HIDDEN", "UNHIDING")
HEALTHY = ("", "HEALTHY", "HEALTH_UNSPECIFIED")


@dataclass
class JobFacts:
    """What the evaluator knows about one job at one moment."""

    job_id: int
    name: str
    project: str
    status: str  # the stored status: running | stalled | failed | succeeded
    started_at: float
    last_seen_at: float
    last_step_at: float | None = None
    last_step: int | None = None
    steps: int = 0
    ended_at: float | None = None
    exit_code: int | None = None
    exit_signal: str | None = None
    gaps: list[float] | None = None  # recent intervals between steps, seconds (loaded when needed)
    phase: str | None = None  # a long phase that began and has not ended
    phase_began_at: float | None = None
    phase_ended_at: float | None = None  # the last end of a phase: progress, too
    node_state: str | None = None
    node_health: str | None = None
    node_cause: str | None = None
    hang_lines: list[str] = field(default_factory=list)  # hang hints after the last step
    duty_cycle_max: float | None = None  # the device's busiest recent sample, percent
    error_title: str | None = None
    speed: SpeedFacts | None = None  # recent step intervals and the job's usual one (slowdown)
    floors: FloorFacts | None = None  # goodput / MFU against the project's floors
    host_lines: list[str] = field(default_factory=list)  # which host of a slice stopped first
    core_lines: list[str] = field(default_factory=list)  # where the cores are (app/device/cores.py)
    straggler: list[str] = field(default_factory=list)  # a persistent device straggler (app/device)
    diverged_at: float | None = None  # its loss went NaN or infinite (alerts/diverged.py)
    compiles: list | None = None  # compilations per function (alerts/recompiles.py)

    def phase_open(self) -> bool:
        return self.phase_began_at is not None and (self.phase_ended_at or 0) < self.phase_began_at


@dataclass
class Verdict:
    condition: str
    summary: str
    details: dict = field(default_factory=dict)


def stall_threshold(gaps: list[float] | None, floor: float) -> float:
    """Seconds without a step that mean "stalled": ``max(floor, median + K·MAD, M·median)``.

    >>> stall_threshold([0.1] * 50, 10.0)
    10.0
    >>> stall_threshold([30.0, 31.0, 29.0], 120.0)
    300.0
    """
    if not gaps:
        return floor
    med = statistics.median(gaps)
    mad = statistics.median(abs(g - med) for g in gaps)
    return max(floor, med + K_MAD * mad, M_MEDIAN * med)


def progress_at(f: JobFacts) -> float:
    """The last moment the job showed progress: a step, the end of a long phase, or its start."""
    return max(x for x in (f.last_step_at, f.phase_ended_at, f.started_at) if x is not None)


def needs_stall_facts(f: JobFacts, now: float, settings: Settings) -> bool:
    """True when the job is quiet long enough that the learned threshold and evidence matter."""
    return f.status not in ("failed", "succeeded") and now - progress_at(f) > settings.stall_floor_seconds


def device_idle(f: JobFacts) -> bool:
    return f.duty_cycle_max is not None and f.duty_cycle_max < IDLE_DUTY_CYCLE_PCT


def judge(f: JobFacts, now: float, settings: Settings) -> Verdict | None:
    """The one condition a job is in (most severe first), or None when it is healthy or done."""
    if f.status == "failed":
        how = f"killed by {f.exit_signal}" if f.exit_signal else f"exited with code {f.exit_code}"
        summary = f"{how}: {f.error_title}" if f.error_title else how
        return Verdict("failed", summary, {"error": f.error_title, "exit_code": f.exit_code})
    if f.status == "succeeded":
        return None
    state = (f.node_state or "").upper()
    if state in PREEMPTED_STATES:
        cause = f" ({f.node_cause})" if f.node_cause else ""
        return Verdict("preempted", f"TPU node is {state}{cause}", {"node_state": state})
    quiet = now - f.last_seen_at
    if quiet > settings.lost_after_seconds:
        return Verdict(
            "lost",
            f"no word from any host for {_dur(quiet)} (lost after {_dur(settings.lost_after_seconds)}): "
            "VM gone, network cut or agent killed",
            {"silent_s": round(quiet, 1)},
        )
    health = (f.node_health or "").upper()
    if state in UNHEALTHY_STATES or health not in HEALTHY:
        what = f"health {health}" if health not in HEALTHY else f"state {state}"
        cause = f" ({f.node_cause})" if f.node_cause else ""
        return Verdict("unhealthy", f"TPU node {what}{cause}", {"node_state": state, "node_health": health})
    stalled = _stall(f, now, settings)
    if stalled is not None or f.phase_open():
        return stalled
    found = slowdown.judge_slowdown(f.speed, now, settings)
    if found and f.straggler:  # a slowdown with the host the device says the others wait for
        found = (found[0], "\n".join([found[1], *f.straggler]), {**found[2], "straggler": f.straggler})
    found = found or slowdown.judge_floors(f.floors) or judge_straggler(f.straggler)
    return Verdict(*found) if found else None


def _stall(f: JobFacts, now: float, settings: Settings) -> Verdict | None:
    since = progress_at(f)
    silent = now - since
    if f.phase and f.phase_began_at is not None and (f.phase_ended_at or 0) < f.phase_began_at:
        took = now - f.phase_began_at
        if took <= settings.long_phase_grace_seconds:
            return None
        summary = (
            f"phase '{f.phase}' has run for {_dur(took)} "
            f"(allowance {_dur(settings.long_phase_grace_seconds)}) with no step"
        )
        return Verdict("stalled", _with_evidence(summary, f), _details(f, silent, took))
    if f.steps < 2:
        # The first steps include XLA compilation: minutes are normal.
        if silent <= settings.first_step_grace_seconds:
            return None
        what = "no first step" if f.steps == 0 else "no step after the first"
        summary = f"{what} for {_dur(silent)} (allowance {_dur(settings.first_step_grace_seconds)})"
        return Verdict("stalled", _with_evidence(summary, f), _details(f, silent, None))
    # A hang line or an idle device is evidence enough once the floor has passed.
    evidence = bool(f.hang_lines) or device_idle(f)
    threshold = (
        settings.stall_floor_seconds if evidence else stall_threshold(f.gaps, settings.stall_floor_seconds)
    )
    if silent <= threshold:
        return None
    at = f" at step {f.last_step}" if f.last_step is not None else ""
    summary = f"no step for {_dur(silent)}{at} (expected within {_dur(threshold)})"
    details = _details(f, silent, None)
    details["threshold_s"] = round(threshold, 1)
    return Verdict("stalled", _with_evidence(summary, f), details)


def _with_evidence(summary: str, f: JobFacts) -> str:
    lines = [summary]
    if device_idle(f):
        lines.append(f"device idle: TPU duty cycle at most {f.duty_cycle_max:.0f}% in the last minutes")
    elif f.duty_cycle_max is not None:
        lines.append(f"device busy: TPU duty cycle up to {f.duty_cycle_max:.0f}% in the last minutes")
    for line in f.hang_lines[-2:]:
        lines.append(f"log: {line.strip()[:300]}")
    lines.extend(f"cores: {line}" for line in f.core_lines)
    lines.extend(f.host_lines)
    return "\n".join(lines)


def _details(f: JobFacts, silent: float, phase_s: float | None) -> dict:
    d: dict = {"silent_s": round(silent, 1), "last_step": f.last_step, "hang_lines": f.hang_lines[-2:]}
    if f.host_lines:
        d["hosts"] = f.host_lines
    if f.core_lines:
        d["cores"] = f.core_lines
    if f.duty_cycle_max is not None:
        d["duty_cycle_max"] = f.duty_cycle_max
    if phase_s is not None:
        d["phase"], d["phase_s"] = f.phase, round(phase_s, 1)
    return d


def _dur(s: float) -> str:
    s = max(0.0, s)
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"
