"""Plotly figures for job pages and post-mortems: pure functions, data in, figure JSON out.

Figures are plain dicts in Plotly's JSON schema: building ``go.Figure`` objects validates every
array in Python, which cost more than the query behind a long run's chart. Traces are SVG
``scatter``, not ``scattergl``: WebGL traces build code at run time, which the pages' CSP forbids
(no unsafe-eval); with at most ~2,000 points per series SVG draws fast enough.
"""

from __future__ import annotations

import json
import math
from typing import Any

from tpuwatch.server.series.schemas import StepSeries
from tpuwatch.server.web import utc

_LABELS = {"step_time": "Step time", "input_wait": "Input wait"}


Figure = dict[str, Any]
LOG_TICKS = ".3~g"


def _figure(traces: list[dict], title: str, x_title: str, y_title: str, meta: dict) -> Figure:
    # The legend sits at the bottom of the figure, under the axis title: room for its rows.
    rows = math.ceil(len(traces) / 5) if len(traces) > 1 else 0
    return {
        "data": traces,
        "layout": {
            "title": {"text": title, "font": {"size": 14}},
            "height": 290 + 22 * rows,
            "margin": {"l": 55, "r": 15, "t": 40, "b": 62 + 22 * rows},
            "xaxis": {"title": {"text": x_title}, "gridcolor": "#eef0f2"},
            "yaxis": {"title": {"text": y_title}, "gridcolor": "#eef0f2", "rangemode": "tozero"},
            # Transparent: the card behind shows through, light or dark (static/js/charts.js
            # takes the font and grid colours from the page's CSS).
            "plot_bgcolor": "rgba(0,0,0,0)",
            "paper_bgcolor": "rgba(0,0,0,0)",
            "showlegend": len(traces) > 1,
            "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0},
            "meta": meta,
        },
    }


def to_json(fig: Figure) -> str:
    return json.dumps(fig, separators=(",", ":"), allow_nan=False)


def step_figure(data: StepSeries, metric: str, title: str | None = None) -> Figure:
    """One line per host of ``metric`` ("step_time" or "input_wait"), seconds on the y axis.

    ``layout.meta`` tells static/js/charts.js which job and metric to re-fetch on zoom.

    >>> from tpuwatch.server.series.schemas import Series
    >>> fig = step_figure(StepSeries(job_id=1, points=10, total_steps=2,
    ...     series=[Series(host=0, metric="step_time", x=[1, 2], y=[0.5, 0.4])]), "step_time")
    >>> fig["data"][0]["name"], fig["layout"]["meta"]
    ('host 0', {'metric': 'step_time', 'job_id': 1, 'zoom': True, 'x': 'step'})
    """
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": s.x,
            "y": [v if v is not None else None for v in s.y],
            "name": f"host {s.host}",
            "hovertemplate": "step %{x}<br>%{y:.4f} s<extra>host " + str(s.host) + "</extra>",
        }
        for s in data.series
        if s.metric == metric
    ]
    note = f" (each point of {data.bucket_steps} steps: min/max kept)" if data.bucket_steps > 1 else ""
    meta = {"metric": metric, "job_id": data.job_id, "zoom": True, "x": "step"}
    fig = _figure(traces, (title or _LABELS[metric]) + note, "step", "seconds", meta)
    if metric == "step_time":
        # A log axis keeps both the compile step (often 100x the rest) and the spread of steady
        # steps readable; input waits are often exactly 0, which a log axis cannot show.
        # Every tick labelled in full ("0.02, 0.05, 0.1"), not a decade's minor ticks as bare
        # digits ("2, 5") that read as seconds.
        fig["layout"]["yaxis"].update(type="log", rangemode="normal", tickformat=LOG_TICKS)
    return fig


def step_figures(data: StepSeries) -> dict[str, str]:
    """The job page's step charts as JSON strings keyed by metric."""
    return {m: to_json(step_figure(data, m)) for m in ("step_time", "input_wait")}


def device_figure(series: list[dict], title: str, y_title: str) -> Figure:
    """One line per (host, chip) over wall-clock time."""
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": [_iso(t, ms=True) for t in s["x"]],
            "y": s["y"],
            "name": f"host {s['host']} {s['metric']}" if s["host"] >= 0 else s["metric"],
        }
        for s in series
    ]
    fig = _figure(traces, title, "time (UTC)", y_title, {"zoom": False, "x": "time"})
    fig["layout"]["xaxis"]["type"] = "date"
    return fig


def device_figures(device: dict) -> dict[str, str]:
    """HBM and duty-cycle charts as JSON strings; a key is missing when there is no data."""
    out = {}
    if device.get("hbm"):
        out["hbm"] = to_json(device_figure(device["hbm"], "HBM per chip", device.get("hbm_unit", "")))
    if device.get("duty"):
        out["duty"] = to_json(device_figure(device["duty"], "Duty cycle per chip", "% busy"))
    return out


def _iso(ts: float, ms: bool = False) -> str | None:
    """UTC text for a date axis; ``ms`` keeps milliseconds, which placing a sample on a step
    axis (static/js/xaxis.js) needs when steps are shorter than a second.

    >>> _iso(1.25), _iso(1.25, ms=True)
    ('1970-01-01 00:00:01', '1970-01-01 00:00:01.250')
    """
    text = utc(ts, "%Y-%m-%d %H:%M:%S.%f" if ms else "%Y-%m-%d %H:%M:%S")
    return text[:-3] if text and ms else text  # None (a gap in the line) where no calendar can show it
