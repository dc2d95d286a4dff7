"""Plotly figures of goodput: pure functions, data in, figure dict out (as ``dashboard/charts.py``).

- ``breakdown_figure``: one horizontal stacked bar per row (an attempt, a run, or a run compared),
  seconds per part;
- ``attempts_figure``: the attempts of a training run on a time axis, idle gaps between them;
- ``mfu_figure``: MFU over time;
- ``step_time_figure``: step-time distributions side by side (box plots).
"""

from __future__ import annotations

import datetime as dt

from tpuwatch.server.dashboard.charts import LOG_TICKS, Figure, _figure, to_json

COLORS = {
    "productive": "#1a7f37",
    "startup": "#8250df",
    "compile": "#bf8700",
    "input": "#0969da",
    "checkpoint": "#1b7c83",
    "stall": "#cf222e",
    "lost_work": "#a40e26",
    "idle": "#afb8c1",
    "other": "#6e7781",
}
STATUS_COLORS = {"succeeded": "#0969da", "failed": "#cf222e", "lost": "#cf222e", "running": "#1a7f37"}


def _iso(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def breakdown_figure(rows: list[tuple[str, dict]], title: str = "Where the time went") -> Figure:
    """``rows``: (label, goodput JSON) pairs; one stacked bar per row, parts in seconds.

    >>> fig = breakdown_figure([("run", {"productive_s": 8.0, "badput_s": {"startup": 2.0}})])
    >>> [t["name"] for t in fig["data"]][:2], fig["data"][0]["x"]
    (['productive', 'startup'], [8.0])
    """
    labels = [label for label, _ in rows]
    traces = []
    for part, color in COLORS.items():
        xs = [
            g.get("productive_s", 0.0) if part == "productive" else g.get("badput_s", {}).get(part, 0.0)
            for _, g in rows
        ]
        if not any(xs) and part != "productive":
            continue
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": part.replace("_", " "),
                "x": xs,
                "y": labels,
                "marker": {"color": color},
                "hovertemplate": "%{x:.1f} s<extra>" + part + "</extra>",
            }
        )
    fig = _figure(traces, title, "seconds", "", {"zoom": False})
    fig["layout"]["barmode"] = "stack"
    fig["layout"]["showlegend"] = True
    fig["layout"]["height"] = 140 + 36 * len(rows) + 22 * ((len(traces) + 4) // 5)
    fig["layout"]["yaxis"].update(automargin=True, rangemode="normal")
    return fig


def attempts_figure(attempts: list[dict]) -> Figure:
    """The attempts as bars on a time axis, coloured by how they ended."""
    traces = []
    for i, a in enumerate(attempts):
        g = a["goodput"]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": [_iso(g["start"]), _iso(g["end"])],
                "y": [f"attempt {i + 1}"] * 2,
                "name": f"attempt {i + 1} ({a['status']})",
                "line": {"width": 14, "color": STATUS_COLORS.get(a["status"], "#6e7781")},
                "hovertemplate": f"job {a['job_id']}: {a['status']}<extra></extra>",
            }
        )
    fig = _figure(traces, "Attempts", "time (UTC)", "", {"zoom": False})
    fig["layout"]["xaxis"]["type"] = "date"
    fig["layout"]["yaxis"].update(autorange="reversed", rangemode="normal")
    fig["layout"]["height"] = 150 + 30 * len(attempts)
    fig["layout"]["showlegend"] = False
    return fig


def mfu_figure(points: list[dict]) -> Figure:
    trace = {
        "type": "scatter",
        "mode": "lines",
        "x": [_iso(p["ts"]) for p in points],
        "y": [p["mfu"] * 100 for p in points],
        "name": "MFU",
        "hovertemplate": "%{y:.1f}%<extra>step %{text}</extra>",
        "text": [p["step"] for p in points],
    }
    fig = _figure([trace], "MFU over time", "time (UTC)", "% of peak", {"zoom": False})
    fig["layout"]["xaxis"]["type"] = "date"
    return fig


def step_time_figure(runs: list[tuple[str, list[float]]]) -> Figure:
    """Step-time distributions (box plots, log axis: a compile step must not flatten the rest)."""
    traces = [
        {"type": "box", "name": label, "y": values, "boxpoints": False, "hoverinfo": "y+name"}
        for label, values in runs
    ]
    fig = _figure(traces, "Step time", "", "seconds", {"zoom": False})
    fig["layout"]["yaxis"].update(type="log", rangemode="normal", tickformat=LOG_TICKS)  # "0.2", not "2"
    fig["layout"]["showlegend"] = False
    return fig


def overlay_figure(
    lines: list[tuple[str, list, list]], title: str, y_title: str, log: bool = False
) -> Figure:
    """Runs overlaid on one step axis: ``lines`` of (label, steps, values).

    >>> fig = overlay_figure([("a #1", [1, 2], [0.5, 0.4]), ("b #2", [1, 2], [0.6, 0.5])], "Loss", "")
    >>> [t["name"] for t in fig["data"]], fig["layout"]["xaxis"]["title"]["text"]
    (['a #1', 'b #2'], 'step')
    """
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": xs,
            "y": ys,
            "name": label,
            "hovertemplate": "step %{x}<br>%{y:.4g}<extra>" + label + "</extra>",
        }
        for label, xs, ys in lines
    ]
    fig = _figure(traces, title, "step", y_title, {"zoom": False})
    fig["layout"]["yaxis"]["rangemode"] = "normal"
    if log:
        fig["layout"]["yaxis"].update(type="log", tickformat=LOG_TICKS)
    return fig


def compare_figures(runs) -> dict[str, str]:
    """The compare page's charts: step time and loss overlaid, distributions, goodput."""
    out = {
        "overlay_steps": to_json(
            overlay_figure([(r.label, r.steps, r.step_times) for r in runs], "Step time", "seconds", log=True)
        ),
        "steps": to_json(step_time_figure([(r.label, r.step_times) for r in runs])),
        "breakdown": to_json(breakdown_figure([(r.label, r.goodput.model_dump()) for r in runs], "Goodput")),
    }
    losses = [(r.label, r.loss["x"], r.loss["y"]) for r in runs if r.loss]
    if losses:
        out["loss"] = to_json(overlay_figure(losses, "Loss", ""))
    return out


def page_figure_dicts(data) -> dict[str, Figure]:
    """The job page's and post-mortem's goodput charts (keys missing when empty)."""
    if data.goodput is None:
        return {}
    rows = [("this attempt", data.goodput.model_dump())]
    out = {}
    if data.run_goodput is not None:
        rows.append(("training run", data.run_goodput.model_dump()))
        attempts = [a.model_dump() for a in data.run_goodput.attempts]
        out["attempts"] = attempts_figure(attempts)
    out["goodput"] = breakdown_figure(rows)
    if data.mfu_points:
        out["mfu"] = mfu_figure([p.model_dump() for p in data.mfu_points])
    return out


def page_figures(data) -> dict[str, str]:
    """The same as JSON strings (the post-mortem inlines them: its export opens offline)."""
    return {k: to_json(v) for k, v in page_figure_dicts(data).items()}


__all__ = [
    "attempts_figure",
    "breakdown_figure",
    "compare_figures",
    "mfu_figure",
    "overlay_figure",
    "page_figure_dicts",
    "page_figures",
    "step_time_figure",
    "to_json",
]
