"""Plotly figures of the device's series: pure functions, rounds in, figures out.

A job of a few hosts draws a line per host (the mean over its chips); a slice draws each metric as
a heatmap (hosts by time) and as bands over hosts (p50, p90, max), which do not grow with the
number of hosts.
"""

from __future__ import annotations

import numpy as np

from tpuwatch.server.dashboard.charts import Figure, _figure
from tpuwatch.server.device import catalog
from tpuwatch.server.device.rounds import Round, host_value

LINES_UP_TO_HOSTS = 8
BINS = 32


def _key(series: str) -> str:
    return "tpu_" + "".join(c if c.isalnum() else "_" for c in series)[:120]


def host_lines(rounds: list[Round], series: str) -> Figure:
    label, unit, _ = catalog.describe(series)
    by_host: dict[int, tuple[list, list]] = {}
    for r in rounds:
        v = host_value(r.data, series)
        if v is not None:
            xs, ys = by_host.setdefault(r.host, ([], []))
            xs.append(r.ts * 1000.0)
            ys.append(v)
    traces = [
        {"type": "scatter", "mode": "lines", "name": f"host {h}", "x": xs, "y": ys}
        for h, (xs, ys) in sorted(by_host.items())
    ]
    fig = _figure(traces, label, "time", unit, {"series": series})
    fig["layout"]["xaxis"]["type"] = "date"
    return fig


def grid(rounds: list[Round], series: str, bins: int = BINS):
    """``(hosts, bin centres in ms, z[host][bin])``: each cell the mean of the host's values."""
    points = [(r.host, r.ts, v) for r in rounds if (v := host_value(r.data, series)) is not None]
    if not points:
        return [], [], []
    hosts = sorted({p[0] for p in points})
    row = {h: i for i, h in enumerate(hosts)}
    t = np.array([p[1] for p in points])
    lo, hi = float(t.min()), float(t.max())
    width = (hi - lo) / bins or 1.0
    slot = np.minimum(((t - lo) / width).astype(np.int64), bins - 1)
    sums = np.zeros((len(hosts), bins))
    counts = np.zeros((len(hosts), bins))
    for (h, _, v), s in zip(points, slot, strict=True):
        sums[row[h], s] += v
        counts[row[h], s] += 1
    used = np.flatnonzero(counts.sum(axis=0) > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)[:, used]
    centres = [(lo + (i + 0.5) * width) * 1000.0 for i in used]
    z = [[None if np.isnan(v) else float(v) for v in line] for line in mean]
    return hosts, centres, z


def heatmap(rounds: list[Round], series: str) -> Figure:
    label, unit, _ = catalog.describe(series)
    hosts, x, z = grid(rounds, series)
    trace = {
        "type": "heatmap",
        "x": x,
        "y": hosts,
        "z": z,
        "colorscale": "Viridis",
        "colorbar": {"title": {"text": unit}, "thickness": 12},
        "hovertemplate": f"host %{{y}}<br>%{{z:.4g}} {unit}<extra></extra>",
    }
    fig = _figure([trace], f"{label} by host", "time", "host", {"series": series, "zoom": False})
    fig["layout"]["xaxis"]["type"] = "date"
    fig["layout"]["yaxis"].update(rangemode="normal", autorange="reversed")
    return fig


def bands(rounds: list[Round], series: str) -> Figure:
    """p50, p90 and max over hosts in each time bin."""
    label, unit, _ = catalog.describe(series)
    _, x, z = grid(rounds, series)
    arr = np.array([[np.nan if v is None else v for v in line] for line in z], dtype=float)
    traces = []
    for name, q in (("p50", 50), ("p90", 90), ("max", 100)):
        with np.errstate(all="ignore"):
            y = np.nanpercentile(arr, q, axis=0) if arr.size else np.array([])
        traces.append(
            {"type": "scatter", "mode": "lines", "name": f"{name} over hosts", "x": x, "y": y.tolist()}
        )
    fig = _figure(traces, f"{label} over hosts (p50 / p90 / max)", "time", unit, {"series": series})
    fig["layout"]["xaxis"]["type"] = "date"
    return fig


def chart_keys(series: list[str], hosts: int) -> list[tuple[str, str]]:
    """``(key, label)`` of the figures ``device_figures`` draws, for the page's placeholders."""
    out = []
    for s in series:
        label = catalog.describe(s)[0]
        if hosts <= LINES_UP_TO_HOSTS:
            out.append((_key(s), f"{label} per host"))
        else:
            out += [(_key(s) + "_heat", f"{label} by host"), (_key(s) + "_bands", f"{label} over hosts")]
    return out


def device_figures(rounds: list[Round], series: list[str]) -> dict[str, Figure]:
    """``{key: figure}`` for each series: lines for a few hosts, else a heatmap and bands."""
    hosts = {r.host for r in rounds}
    out: dict[str, Figure] = {}
    for s in series:
        if len(hosts) <= LINES_UP_TO_HOSTS:
            out[_key(s)] = host_lines(rounds, s)
        else:
            out[_key(s) + "_heat"] = heatmap(rounds, s)
            out[_key(s) + "_bands"] = bands(rounds, s)
    return out
