"""A job's status as a person means it: stored facts plus how long it has been quiet."""

from __future__ import annotations

from sqlalchemy import and_

from tpuwatch.server.models import Job
from tpuwatch.server.settings import Settings

STATUSES = ("running", "stalled", "failed", "diverged", "succeeded", "lost")
POSTMORTEM = ("failed", "lost", "diverged")  # statuses whose pages link a post-mortem


def effective_status(job: Job, now: float, settings: Settings) -> str:
    """``diverged`` once its loss went NaN or infinite (whatever came after: a run that diverged
    and exited 0 is no success); else its ``outcome``."""
    if job.diverged_at is not None:
        return "diverged"
    return outcome(job, now, settings)


def outcome(job: Job, now: float, settings: Settings) -> str:
    """``failed``/``succeeded`` once the job exited; ``lost`` when its agents went silent;
    ``stalled`` when steps stopped coming although the agents still answer; else ``running``.

    With alerts on, ``stalled`` is the alert evaluator's verdict (stored in ``jobs.status``): it
    knows the job's learned step threshold, long phases and device evidence, so the jobs API, the
    overview and the alerts page agree. Without it, a plain rule of thumb stands in."""
    if job.status in ("failed", "succeeded"):
        return job.status
    if now - job.last_seen_at > settings.lost_after_seconds:
        return "lost"
    if settings.alerts_enabled:
        if job.status == "stalled":
            # Steps came back since the evaluator looked: running, before the alert resolves.
            recent = job.last_step_at is not None and now - job.last_step_at < settings.stall_floor_seconds
            return "running" if recent else "stalled"
        return "running"
    if job.last_step_at is None:
        if now - job.started_at > settings.first_step_grace_seconds:
            return "stalled"
    elif now - job.last_step_at > max(settings.stall_floor_seconds, 20 * (job.step_time_p50 or 0)):
        return "stalled"
    return "running"


def might_be(status: str, now: float, settings: Settings):
    """A SQL condition that every job whose ``effective_status`` is ``status`` meets (a superset:
    the exact status is decided in Python), so a filtered list reads the jobs that can match, not
    the whole history."""
    if status == "diverged":
        return Job.diverged_at.is_not(None)
    if status in ("failed", "succeeded"):
        return and_(Job.diverged_at.is_(None), Job.status == status)
    alive = and_(Job.diverged_at.is_(None), Job.status.not_in(("failed", "succeeded")))
    if status == "lost":
        return and_(alive, Job.last_seen_at <= now - settings.lost_after_seconds)
    return and_(alive, Job.last_seen_at >= now - settings.lost_after_seconds)
