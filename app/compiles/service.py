"""Reading a job's compile events (``kind = "compile"``, sent by the agent: agent/compiles.py for
JAX, the sidecar's log reader for TensorFlow's retracing warnings) into :class:`JobCompiles`."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.compiles.rules import _int, _num, recompiling, summarize
from tpuwatch.server.compiles.schemas import CompilePoint, JobCompiles
from tpuwatch.server.models import Event, Job
from tpuwatch.wire import Kind

MAX_EVENTS = 20_000  # compile events read for one job (the agent sends at most 5,000 per process)
MAX_POINTS = 2000  # compilations drawn: the latest ones


def load_rows(session: Session, job_id: int, after_id: int = 0, limit: int = MAX_EVENTS) -> list:
    """(id, host, ts, data) of the job's compile events after event ``after_id``, in time order."""
    return session.execute(
        select(Event.id, Event.host_index, Event.ts, Event.data)
        .where(Event.job_id == job_id, Event.kind == Kind.COMPILE, Event.id > after_id)
        .order_by(Event.ts, Event.id)
        .limit(limit)
    ).all()


def job_compiles(session: Session, job: Job) -> JobCompiles:
    """Compilations per function, the functions recompiling, and the latest compilations."""
    rows = load_rows(session, job.id)
    triples = [(r.host_index, r.ts, r.data) for r in rows]
    functions = summarize(triples)
    per_host: dict[int, float] = {}
    points = []
    for host, ts, data in triples[-MAX_POINTS:]:
        data = data if isinstance(data, dict) else {}
        points.append(
            CompilePoint(
                ts=ts,
                host_index=host,
                function=str(data.get("function") or "?")[:200],
                step=_int(data.get("step")),
                duration=_num(data.get("duration")),
                cache=data.get("cache") if data.get("cache") in ("hit", "miss") else None,
            )
        )
    for host, _, data in triples:
        d = _num(data.get("duration")) if isinstance(data, dict) else None
        per_host[host] = per_host.get(host, 0.0) + (d or 0.0)
    return JobCompiles(
        job_id=job.id,
        compilations=sum(f.count for f in functions),
        total_s=round(max(per_host.values(), default=0.0), 6),
        functions=functions,
        recompiling=recompiling(functions),
        points=points,
        truncated=len(rows) >= MAX_EVENTS,
    )
