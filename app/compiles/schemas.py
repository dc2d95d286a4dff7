"""What the compilations API returns. Times are UNIX seconds, durations seconds."""

from __future__ import annotations

from pydantic import BaseModel


class FunctionCompiles(BaseModel):
    """One function's compilations on the host that compiled it most."""

    function: str
    framework: str  # jax | tensorflow
    host_index: int
    count: int  # compilations (JAX) or traces the retracing warnings reported (TensorFlow)
    recompiles: int  # of ``count``, those after its warm-up (its first compilation)
    total_s: float | None  # seconds spent; None where the framework gives no duration (TF warnings)
    max_s: float | None
    cache_hits: int = 0
    cache_misses: int = 0
    first_ts: float
    last_ts: float
    first_step: int | None = None
    last_step: int | None = None


class CompilePoint(BaseModel):
    ts: float
    host_index: int
    function: str
    step: int | None
    duration: float | None
    cache: str | None = None


class JobCompiles(BaseModel):
    """``GET /api/v1/jobs/{id}/compiles``: compilations per function, the most compiled first."""

    job_id: int
    compilations: int  # of all functions, each on the host that compiled it most
    total_s: float  # seconds compiling on the host that compiled longest
    functions: list[FunctionCompiles]
    recompiling: list[str]  # functions that compile again and again after their warm-up
    points: list[CompilePoint]  # the latest compilations, for the chart (at most ``MAX_POINTS``)
    truncated: bool = False  # the job has more compile events than were read
