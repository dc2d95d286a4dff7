"""Plotly figures for job pages and post-mortems: pure functions, data in, figure JSON out.

Traces are SVG ``Scatter``, not ``Scattergl``: WebGL traces build code at run time, which the
pages' CSP forbids (no unsafe-eval); at most ~2,000 points per series, SVG draws fast enough.
"""

from __future__ import annotations

import plotly.graph_objects as go

from app.jobs.schemas import StepSeries

_LABELS = {"step_time": "Step time", "input_wait": "Input wait"}


def _layout(fig: go.Figure, title: str, x_title: str, y_title: str, meta: dict) -> go.Figure:
    fig.update_layout(
        title=dict(text=title, font=dict(size=14)),
        height=300,
        margin=dict(l=55, r=15, t=40, b=40),
        xaxis_title=x_title,
        yaxis_title=y_title,
        template="plotly_white",
        showlegend=len(fig.data) > 1,
        legend=dict(orientation="h", y=-0.25),
        meta=meta,
    )
    return fig


def step_figure(data: StepSeries, metric: str, title: str | None = None) -> go.Figure:
    """One line per host of ``metric`` ("step_time" or "input_wait"), seconds on the y axis.

    ``layout.meta`` tells static/js/charts.js which job and metric to re-fetch on zoom."""
    fig = go.Figure()
    for s in data.series:
        if s.metric != metric:
            continue
        fig.add_trace(
            go.Scatter(
                x=s.x,
                y=s.y,
                mode="lines",
                name=f"host {s.host}",
                hovertemplate="step %{x}<br>%{y:.4f} s<extra>host " + str(s.host) + "</extra>",
            )
        )
    note = f" (each point of {data.bucket_steps} steps: min/max kept)" if data.bucket_steps > 1 else ""
    meta = {"metric": metric, "job_id": data.job_id, "zoom": True}
    return _layout(fig, (title or _LABELS[metric]) + note, "step", "seconds", meta)


def step_figures(data: StepSeries) -> dict[str, str]:
    """The job page's step charts as JSON strings keyed by metric."""
    return {m: step_figure(data, m).to_json() for m in ("step_time", "input_wait")}


def device_figure(series: list[dict], title: str, y_title: str) -> go.Figure:
    """One line per (host, chip) over wall-clock time."""
    fig = go.Figure()
    for s in series:
        fig.add_trace(
            go.Scatter(
                x=[_iso(t) for t in s["x"]],
                y=s["y"],
                mode="lines",
                name=f"host {s['host']} {s['metric']}",
            )
        )
    return _layout(fig, title, "time (UTC)", y_title, {"zoom": False})


def device_figures(device: dict) -> dict[str, str]:
    """HBM and duty-cycle charts as JSON strings; a key is missing when there is no data."""
    out = {}
    if device.get("hbm"):
        out["hbm"] = device_figure(device["hbm"], "HBM per chip", device.get("hbm_unit", "")).to_json()
    if device.get("duty"):
        out["duty"] = device_figure(device["duty"], "Duty cycle per chip", "% busy").to_json()
    return out


def _iso(ts: float) -> str:
    import datetime as dt

    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
