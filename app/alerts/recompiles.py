"""A running job that compiles the same function again and again after its warm-up raises one
``recompiling`` alert naming the function (app/compiles/rules.py decides what counts); it resolves
once no recompilation came for ``ACTIVE_S``. It ranks below every other condition: a job that
stalls or slows down while recompiling is alerted for that.

The tracker reads only the compile events that arrived since its last pass, per job."""

from __future__ import annotations

from sqlalchemy.orm import Session

from tpuwatch.server.alerts.rules import JobFacts, Verdict
from tpuwatch.server.compiles.rules import ACTIVE_S, describe, recompiling, summarize
from tpuwatch.server.compiles.service import MAX_EVENTS, load_rows
from tpuwatch.server.models import Job

CONDITION = "recompiling"


class RecompileTracker:
    """The compile events of live jobs, kept between passes and read incrementally."""

    def __init__(self) -> None:
        self._rows: dict[int, tuple[int, list]] = {}  # job id -> (last event id, [(host, ts, data)])

    def facts(self, session: Session, job: Job) -> list:
        last, rows = self._rows.get(job.id, (0, []))
        if len(rows) < MAX_EVENTS:
            new = load_rows(session, job.id, after_id=last, limit=MAX_EVENTS - len(rows))
            if new:
                rows = rows + [(r.host_index, r.ts, r.data) for r in new]
                last = max(r.id for r in new)
                rows.sort(key=lambda r: r[1])
        self._rows[job.id] = (last, rows)
        return summarize(rows) if rows else []

    def forget(self, live: set[int]) -> None:
        self._rows = {k: v for k, v in self._rows.items() if k in live}


def judge_recompiling(f: JobFacts, now: float) -> Verdict | None:
    """The ``recompiling`` verdict of a running job, else None.

    >>> from tpuwatch.server.compiles.schemas import FunctionCompiles
    >>> fn = FunctionCompiles(function="train_step", framework="jax", host_index=0, count=5,
    ...     recompiles=4, total_s=2.0, max_s=1.0, first_ts=0, last_ts=100, first_step=1, last_step=5)
    >>> f = JobFacts(job_id=1, name="j", project="p", status="running", started_at=0, last_seen_at=100,
    ...     compiles=[fn])
    >>> judge_recompiling(f, 200).summary
    'train_step compiled 5 times (4 after its first), 2.00 s in all, the last at step 5'
    >>> judge_recompiling(f, 100 + ACTIVE_S + 1) is None
    True
    """
    if f.status != "running" or f.phase_open() or not f.compiles:
        return None
    names = recompiling(f.compiles, since=now - ACTIVE_S)
    if not names:
        return None
    found = [fn for fn in f.compiles if fn.function in names]
    summary = "; ".join(describe(fn) for fn in found[:3])
    details = {
        "functions": names,
        "recompiles": {fn.function: fn.recompiles for fn in found},
        "compile_s": round(sum(fn.total_s or 0.0 for fn in found), 3),
    }
    return Verdict(CONDITION, summary, details)
