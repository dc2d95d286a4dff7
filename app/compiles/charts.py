"""The job page's "compilations over the run": each compilation at its step, its seconds on the y
axis, one trace per function (the most compiled eight; the rest together)."""

from __future__ import annotations

from tpuwatch.server.compiles.schemas import JobCompiles
from tpuwatch.server.dashboard.charts import Figure, _figure

MAX_TRACES = 8


def compiles_figure(data: JobCompiles) -> Figure | None:
    """Plotly figure of ``data.points`` by step, or None without timed compilations.

    >>> from tpuwatch.server.compiles.schemas import CompilePoint
    >>> p = CompilePoint(ts=1.0, host_index=0, function="f", step=3, duration=0.5)
    >>> fig = compiles_figure(JobCompiles(job_id=1, compilations=1, total_s=0.5, functions=[],
    ...     recompiling=[], points=[p]))
    >>> fig["data"][0]["name"], fig["data"][0]["x"], fig["data"][0]["y"]
    ('f', [3], [0.5])
    """
    timed = [p for p in data.points if p.duration is not None and p.step is not None]
    if not timed:
        return None
    top = [f.function for f in data.functions] or sorted({p.function for p in timed})
    top = top[:MAX_TRACES]
    groups: dict[str, list] = {}
    for p in timed:
        groups.setdefault(p.function if p.function in top else "other functions", []).append(p)
    traces = [
        {
            "type": "scatter",
            "mode": "markers",
            "name": name,
            "x": [p.step for p in pts],
            "y": [round(p.duration, 6) for p in pts],
            "text": [f"host {p.host_index}" + (f", cache {p.cache}" if p.cache else "") for p in pts],
            "hovertemplate": "%{fullData.name}: %{y:.3f} s at step %{x}<br>%{text}<extra></extra>",
        }
        for name, pts in groups.items()
    ]
    meta = {"job_id": data.job_id, "x": "step"}
    return _figure(traces, "Compilations over the run", "step", "seconds compiling", meta)
