"""Plotly figures of a slice: pure functions, data in, figure JSON out (like dashboard/charts.py).

A heatmap draws 1,024 hosts x 32 buckets as one trace; the bands draw three; the chip
distributions are histograms. None of them grows with the number of hosts the way one line per
host would.
"""

from __future__ import annotations

from tpuwatch.server.dashboard.charts import Figure, _figure, to_json
from tpuwatch.server.slice.schemas import SliceData


def heatmap_figure(data: SliceData, metric: str, title: str) -> Figure:
    """Hosts (y) by step bucket (x), coloured by the bucket's mean ``metric`` in seconds.

    >>> d = SliceData(job_id=1, hosts=[0, 1], steps=[0, 16], bucket_steps=16, step_time=[[1, 2], [1, None]],
    ...               input_wait=[[0, 0], [0, 0]], bands={})
    >>> heatmap_figure(d, "step_time", "Step time")["data"][0]["z"]
    [[1.0, 2.0], [1.0, None]]
    """
    z = data.step_time if metric == "step_time" else data.input_wait
    trace = {
        "type": "heatmap",
        "x": data.steps,
        "y": data.hosts,
        "z": z,
        "colorscale": "Viridis",
        "colorbar": {"title": {"text": "s"}, "thickness": 12},
        "hovertemplate": "host %{y}<br>steps %{x}+<br>%{z:.4f} s<extra></extra>",
        "zsmooth": False,
    }
    span = f", steps {data.steps[0]}–{data.steps[-1] + data.bucket_steps - 1}" if data.steps else ""
    note = f" (mean over {data.bucket_steps} steps per cell{span})"
    fig = _figure([trace], title + " by host" + note, "step", "host", {"zoom": False, "metric": metric})
    fig["layout"]["yaxis"].update(rangemode="normal", autorange="reversed")
    fig["layout"]["height"] = 360
    return fig


def bands_figure(data: SliceData) -> Figure:
    """p50, p90 and max over hosts of each bucket's mean step time."""
    styles = {"p50": "#1f77b4", "p90": "#ff7f0e", "max": "#d62728"}
    traces = [
        {
            "type": "scatter",
            "mode": "lines",
            "x": data.steps,
            "y": data.bands.get(name, []),
            "name": f"{name} over hosts",
            "line": {"color": color, "width": 1.5},
            **({"fill": "tonexty"} if name != "p50" else {}),
        }
        for name, color in styles.items()
    ]
    fig = _figure(traces, "Step time over hosts (p50 / p90 / max)", "step", "seconds", {"zoom": False})
    return fig


def distribution_figure(values: list[float], title: str, x_title: str) -> Figure:
    trace = {"type": "histogram", "x": values, "nbinsx": 40, "marker": {"color": "#4c78a8"}}
    return _figure([trace], f"{title} ({len(values)} chips)", x_title, "chips", {"zoom": False})


def slice_figures(data: SliceData) -> dict[str, str]:
    """The slice's charts as JSON strings keyed by name; a key is missing when there is no data."""
    out = {
        "slice_step_time": to_json(heatmap_figure(data, "step_time", "Step time")),
        "slice_input_wait": to_json(heatmap_figure(data, "input_wait", "Input wait")),
        "slice_bands": to_json(bands_figure(data)),
    }
    if data.hbm:
        out["slice_hbm"] = to_json(
            distribution_figure([v * 100 for v in data.hbm], "HBM use", "% of the chip")
        )
    if data.duty:
        out["slice_duty"] = to_json(distribution_figure(data.duty, "Duty cycle", "% busy"))
    return out
