"""A run whose loss went NaN or infinite (``jobs.diverged_at``, set at ingest) raises one alert,
whatever its exit code: a run that diverged and exited 0 is no success, and one that diverged and
then crashed has one story, not two. It outranks every other condition of the job, so the alert
never changes condition (and notifies again) as the job dies after diverging."""

from __future__ import annotations

from sqlalchemy import and_

from tpuwatch.server.alerts.rules import JobFacts, Verdict
from tpuwatch.server.models import Job

CONDITION = "diverged"
LOOKBACK_S = 3600.0  # a divergence older than this when first seen raises nothing


def recent(now: float):
    """The jobs the evaluator looks at for this rule even after they ended."""
    return and_(Job.diverged_at.is_not(None), Job.diverged_at > now - LOOKBACK_S)


def judge_diverged(f: JobFacts) -> Verdict | None:
    """The ``diverged`` verdict of a job whose loss went NaN or infinite, else None.

    >>> f = JobFacts(job_id=1, name="j", project="p", status="succeeded", started_at=0, last_seen_at=9,
    ...              diverged_at=5.0, error_title="Invalid loss: loss is NaN at step 10")
    >>> judge_diverged(f).summary
    'the loss went NaN or infinite (Invalid loss: loss is NaN at step 10)'
    """
    if f.diverged_at is None:
        return None
    said = f" ({f.error_title})" if f.error_title else ""
    details = {"diverged_at": f.diverged_at, "error": f.error_title, "exit_code": f.exit_code}
    return Verdict(CONDITION, f"the loss went NaN or infinite{said}", details)
