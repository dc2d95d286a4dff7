"""Plotly figures for job pages: pure functions, data in, figure JSON out."""

from __future__ import annotations

import plotly.graph_objects as go

from app.jobs.schemas import StepSeries

_LABELS = {"step_time": "step time", "input_wait": "input wait"}


def step_figure(data: StepSeries, metric: str, title: str) -> go.Figure:
    """One line per host of ``metric`` ("step_time" or "input_wait"), seconds on the y axis."""
    fig = go.Figure()
    for s in data.series:
        if s.metric != metric:
            continue
        fig.add_trace(
            go.Scattergl(
                x=s.x,
                y=s.y,
                mode="lines",
                name=f"host {s.host}",
                hovertemplate="step %{x}<br>%{y:.4f} s<extra>host " + str(s.host) + "</extra>",
            )
        )
    fig.update_layout(
        title=title,
        height=300,
        margin=dict(l=50, r=20, t=40, b=40),
        xaxis_title="step",
        yaxis_title="seconds",
        template="plotly_white",
        showlegend=len(fig.data) > 1,
        meta={"metric": metric},
    )
    return fig


def step_figures(data: StepSeries) -> dict[str, str]:
    """The job page's charts as JSON strings keyed by metric."""
    return {m: step_figure(data, m, _LABELS[m]).to_json() for m in ("step_time", "input_wait")}
