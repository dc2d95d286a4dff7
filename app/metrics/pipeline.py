"""The input pipeline's own timings (Grain's, read by the agent from the local Prometheus endpoint)
drawn on the job's input-wait chart: each sample's time mapped to the step the job was at, so a
slow ``next()`` in the pipeline lines up with the input waits it causes."""

from __future__ import annotations

import bisect

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.models import Job, Metric
from tpuwatch.server.series.clock import step_clock
from tpuwatch.wire import MetricName

# Series in seconds, like the input wait: those share its chart.
ON_INPUT_WAIT = {
    MetricName.GRAIN_NEXT: "Grain next()",
    MetricName.GRAIN_SOURCE_READ: "Grain source read",
}
MAX_POINTS = 2000


def step_at(clock: list[list[float]], ts: float) -> float | None:
    """The (fractional) step the job was at at ``ts``, from its clock; None outside it.

    >>> step_at([[0, 100.0], [10, 200.0]], 150.0), step_at([[0, 100.0], [10, 200.0]], 99.0)
    (5.0, None)
    """
    if len(clock) < 2:
        return None
    times = [t for _, t in clock]
    if ts < times[0] or ts > times[-1] + 3600:
        return None
    i = min(max(bisect.bisect_right(times, ts) - 1, 0), len(clock) - 2)
    (s0, t0), (s1, t1) = clock[i], clock[i + 1]
    return s0 + (ts - t0) * (s1 - s0) / (t1 - t0) if t1 > t0 else s0


def input_wait_traces(session: Session, job: Job) -> list[dict]:
    """Plotly traces of the pipeline's timings per host on the step axis (none without samples)."""
    rows = session.execute(
        select(Metric.name, Metric.host_index, Metric.ts, Metric.value)
        .where(Metric.job_id == job.id, Metric.name.in_(tuple(ON_INPUT_WAIT)))
        .order_by(Metric.ts)
        .limit(MAX_POINTS * 8)
    ).all()
    if not rows:
        return []
    clock = step_clock(session, job)
    series: dict[tuple[str, int], tuple[list, list]] = {}
    for name, host, ts, value in rows:
        step = step_at(clock, ts)
        if step is None or not np.isfinite(value):
            continue
        xs, ys = series.setdefault((name, host), ([], []))
        xs.append(round(step, 2))
        ys.append(value)
    return [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": f"{ON_INPUT_WAIT[name]}, host {host}",
            "x": xs[-MAX_POINTS:],
            "y": ys[-MAX_POINTS:],
            "line": {"dash": "dot"},
        }
        for (name, host), (xs, ys) in sorted(series.items())
    ]
