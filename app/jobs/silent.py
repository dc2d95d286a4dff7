"""Silent failures: runs that end with exit 0 although they went wrong.

- **Diverged**: a loss that became NaN or infinite (from the Keras callback, ``mon.log`` or
  ``mon.metric``; stored as NULL) is recorded at ingest as an error event that triage classifies
  ``nan_inf``, once per job, so the run carries the card and the flag even when it exited 0.
- **Ended early**: a run that declared how many steps it would make (Keras knows
  ``epochs * steps_per_epoch``; ``tpuwatch.init(total_steps=...)``) and stopped far short of them,
  usually because its dataset ran out.
"""

from __future__ import annotations

import math

from sqlalchemy import func, insert, select, update
from sqlalchemy.orm import Session

from tpuwatch.server.models import Event, Job
from tpuwatch.server.triage.service import classify_events
from tpuwatch.wire import Kind

DIVERGED_PREFIX = "Invalid loss: "
ENDED_EARLY = 0.9  # a run that made less than this share of its planned steps ended early


def is_loss(name: str) -> bool:
    """Example:

    >>> is_loss("keras.val_loss"), is_loss("train/loss"), is_loss("lr")
    (True, True, False)"""
    return "loss" in name.rpartition("/")[2].rpartition(".")[2].lower()


def record_divergence(session: Session, job_id: int, host: int, metrics: list) -> bool:
    """Store one ``nan_inf`` error event for the first non-finite loss in ``metrics`` (batch rows
    ``[ts, name, chip, value(, step)]``), unless the job already has one. True when stored."""
    bad = next(
        (m for m in metrics if (m[3] is None or not math.isfinite(m[3])) and is_loss(m[1])),
        None,
    )
    if bad is None:
        return False
    seen = session.scalar(
        select(Event.id)
        .where(Event.job_id == job_id, Event.kind == Kind.ERROR, Event.message.startswith(DIVERGED_PREFIX))
        .limit(1)
    )
    if seen is not None:
        return False
    step = bad[4] if len(bad) > 4 else None
    value = "NaN" if bad[3] is None or math.isnan(bad[3]) else ("Inf" if bad[3] > 0 else "-Inf")
    where = f" at step {step}" if step is not None else ""
    message = f"{DIVERGED_PREFIX}{bad[1]} is {value}{where}: the loss is not finite, the run diverged"
    data = {"source": "metrics", "metric": bad[1], "step": step}
    ((ts, kind, message, data),) = classify_events([(bad[0], Kind.ERROR, message, data)])
    session.execute(
        insert(Event),
        [{"job_id": job_id, "host_index": host, "ts": ts, "kind": kind, "message": message, "data": data}],
    )
    session.execute(update(Job).where(Job.id == job_id).values(errors=Job.errors + 1))
    mark_diverged(session, job_id, bad[0])
    return True


def mark_diverged(session: Session, job_id: int, ts: float) -> None:
    """The job's status is ``diverged`` from now on (the first time it was seen is kept)."""
    session.execute(
        update(Job).where(Job.id == job_id).values(diverged_at=func.coalesce(Job.diverged_at, ts))
    )


def diverged_in(events: list[tuple]) -> float | None:
    """When the first error event of a batch (rows ``(ts, kind, message, data)``, classified) said
    the loss went NaN or infinite (its first card is ``nan_inf``), else None."""
    for ts, kind, _, data in events:
        cards = (data or {}).get("cards") if kind == Kind.ERROR else None
        if cards and isinstance(cards[0], dict) and cards[0].get("category") == "nan_inf":
            return ts
    return None


def planned_steps(events) -> tuple[int, str] | None:
    """The steps the run said it would make, and where it said so (the latest model_info wins)."""
    planned = None
    for e in events:
        data = e.data or {}
        if e.kind != Kind.MODEL_INFO:
            continue
        if isinstance(data.get("total_steps"), int) and data["total_steps"] > 0:
            planned = (data["total_steps"], "total_steps")
        elif all(isinstance(data.get(k), int) and data[k] > 0 for k in ("epochs", "steps_per_epoch")):
            planned = (data["epochs"] * data["steps_per_epoch"], "epochs x steps_per_epoch")
    return planned


def ended_early_card(job: Job, status: str, events) -> dict | None:
    """The "ended early" card of a run that exited cleanly far short of its planned steps."""
    planned = planned_steps(events)
    if status != "succeeded" or planned is None:
        return None
    total, source = planned
    done = job.last_step or 0
    if done >= total * ENDED_EARLY:
        return None
    return {
        "category": "input_pipeline",
        "subtype": "ended_early",
        "title": f"Ended early: {done} of {total} planned steps",
        "confidence": 0.9,
        "evidence": f"last step {done}; planned {total} ({source})",
        "line": None,
        "explanation": "The run exited cleanly, but made only "
        f"{done / total:.0%} of the steps it declared. A dataset that runs out (a finite "
        "tf.data pipeline without repeat(), or fewer batches than steps_per_epoch * epochs) ends "
        "Keras training early with only a warning.",
        "fixes": [
            "Make the input pipeline long enough: repeat() the dataset, or set steps_per_epoch to "
            "the number of batches it really has.",
            'Check the log for "Your input ran out of data" and for an early-stopping callback.',
            "If fewer steps were intended, declare them (total_steps, epochs) so the run reads as complete.",
        ],
        "host_index": 0,
        "ts": job.ended_at or job.last_seen_at,
        "event_id": None,
    }


def flags(error_cards: list[dict]) -> list[str]:
    """Words for the page's badges: ``diverged`` (a nan_inf card), ``ended early``."""
    out = []
    if any(c.get("category") == "nan_inf" for c in error_cards):
        out.append("diverged")
    if any(c.get("subtype") == "ended_early" for c in error_cards):
        out.append("ended early")
    return out
