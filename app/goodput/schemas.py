"""What the goodput API and pages return. Seconds throughout; ``badput_s`` keys are the contract."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Badput(BaseModel):
    startup: float = 0.0  # process start to the first step
    compile: float = 0.0  # the first step and recompiles beyond the steady step time
    input: float = 0.0  # waiting for input
    checkpoint: float = 0.0  # saves and restores that held training up
    stall: float = 0.0  # no progress far beyond the usual gap between steps
    lost_work: float = 0.0  # steps done again after a restart, and the step a death cut short
    idle: float = 0.0  # between attempts (preemption, repair, relaunch)
    other: float = 0.0  # everything else: the usual gap between steps, eval, shutdown


class Mfu(BaseModel):
    flops_per_step: float | None = None
    peak_flops: float | None = None  # FLOP/s of the whole job's chips
    peak_source: str | None = None  # "given" | "accelerator type"
    accelerator_type: str | None = None
    step_time_s: float | None = None  # the wall time of a step (its input wait included) MFU is over
    mfu: float | None = None
    warning: str | None = None  # above 100%: the peak or the FLOPs per step are wrong


class Goodput(BaseModel):
    """One attempt (a job), or a training run's attempts together."""

    total_s: float
    productive_s: float
    badput_s: Badput
    goodput: float | None = Field(None, description="productive_s / total_s")
    start: float
    end: float
    phases_s: dict[str, float] = {}  # named phases counted in "other" (eval, ...)
    steady_step_s: float | None = None
    steps: int = 0
    productive_steps: int = 0
    lost_steps: int = 0
    stalls: int = 0
    mfu: Mfu = Mfu()


class AttemptOut(BaseModel):
    job_id: int
    name: str
    run_id: str
    status: str
    started_at: float
    ended_at: float | None
    url: str
    resumed_from: int | None = None  # the step it restored
    lost_after: int | None = None  # its steps after this one were done again
    goodput: Goodput


class JobGoodput(Goodput):
    """``GET /api/v1/jobs/{id}/goodput``: this attempt, and where it sits in its training run."""

    job_id: int
    outcome: str
    resumed_from: int | None = None
    lost_after: int | None = None
    group: str
    attempt: int  # 1 for the first attempt of the training run
    attempts: int
    run_url: str


class RunGoodput(Goodput):
    """``GET /api/v1/runs/{id}/goodput``: every attempt of the training run, from the first one's
    start to the last one's end (or now); idle is the time between attempts."""

    group: str
    project: str
    first_job_id: int
    attempts: list[AttemptOut]


class MfuPoint(BaseModel):
    ts: float
    step: int
    mfu: float


class Floors(BaseModel):
    """A project's alert floors: fractions 0-1, None for no alert."""

    goodput: float | None = Field(None, ge=0, le=1)
    mfu: float | None = Field(None, ge=0, le=1)
