"""The job page's charts as JSON (``GET /api/v1/jobs/{id}/charts?group=...``): the page's HTML holds
only where each chart goes (``data-src`` and ``data-key``), and static/js/charts.js fetches the
figures, so the page is as small at a million steps as at a thousand.

A group is a pure function from the stored series to ``{key: Plotly figure}``. A new section of the
page adds a group here (``GROUPS[name] = function``), a fragment template with its chart
placeholders, and one ``include`` line in templates/jobs/detail.html.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from types import SimpleNamespace

from sqlalchemy.orm import Session

from tpuwatch.server.dashboard import charts
from tpuwatch.server.dashboard.training import training_figures
from tpuwatch.server.errors import NotFound
from tpuwatch.server.goodput import charts as goodput_charts
from tpuwatch.server.goodput.service import page_goodput
from tpuwatch.server.metrics.service import device_series
from tpuwatch.server.metrics.training import training_series
from tpuwatch.server.models import Job
from tpuwatch.server.series.clock import step_clock
from tpuwatch.server.series.service import step_series
from tpuwatch.server.settings import Settings

Group = Callable[[Session, Job, Settings], dict]


def steps(session: Session, job: Job, settings: Settings) -> dict:
    from tpuwatch.server.metrics.pipeline import input_wait_traces

    figs = {m: charts.step_figure(step_series(session, job), m) for m in ("step_time", "input_wait")}
    pipeline = input_wait_traces(session, job)  # Grain's timings, where the job reported them
    if pipeline:
        figs["input_wait"]["data"].extend(pipeline)
        figs["input_wait"]["layout"]["showlegend"] = True
    return figs


def device(session: Session, job: Job, settings: Settings) -> dict:
    data = device_series(session, job.id)
    data = {k: (v if isinstance(v, str) else [s.model_dump() for s in v]) for k, v in data.items()}
    out = {}
    if data.get("hbm"):
        out["hbm"] = charts.device_figure(data["hbm"], "HBM per chip", data.get("hbm_unit", ""))
    if data.get("duty"):
        out["duty"] = charts.device_figure(data["duty"], "Duty cycle per chip", "% busy")
    return out


def goodput(session: Session, job: Job, settings: Settings) -> dict:
    return goodput_charts.page_figure_dicts(SimpleNamespace(**page_goodput(session, job, settings)))


def training(session: Session, job: Job, settings: Settings) -> dict:
    """``{"charts": [{"key", "section", "figure"}]}``: loss first (metrics/training.py's order)."""
    return {"charts": training_figures(training_series(session, job.id))}


def slice_group(session: Session, job: Job, settings: Settings) -> dict:
    from tpuwatch.server.slice.charts import slice_figures
    from tpuwatch.server.slice.service import slice_data

    return {k: json.loads(v) for k, v in slice_figures(slice_data(session, job)).items()}


def tpu(session: Session, job: Job, settings: Settings) -> dict:
    """Every runtime metric the hosts' libtpu served (app/device)."""
    from tpuwatch.server.device.service import chart_group

    return chart_group(session, job)


def clock(session: Session, job: Job, settings: Settings) -> dict:
    """The job's clock (step, time) pairs: how static/js/xaxis.js puts step and time series on
    one axis."""
    return {"clock": step_clock(session, job)}


def compiles(session: Session, job: Job, settings: Settings) -> dict:
    from tpuwatch.server.compiles.charts import compiles_figure
    from tpuwatch.server.compiles.service import job_compiles

    fig = compiles_figure(job_compiles(session, job))
    return {"compiles": fig} if fig else {}


GROUPS: dict[str, Group] = {
    "steps": steps,
    "device": device,
    "goodput": goodput,
    "training": training,
    "slice": slice_group,
    "tpu": tpu,
    "clock": clock,
    "compiles": compiles,
}


def group_figures(session: Session, job: Job, settings: Settings, name: str) -> dict:
    group = GROUPS.get(name)
    if group is None:
        raise NotFound(f"no chart group {name!r} (there are {', '.join(sorted(GROUPS))})")
    return group(session, job, settings)
