"""The training charts as people read them: loss first, a split's twins on one chart (``train/loss``
and ``eval/loss``, Keras ``loss`` and ``val_loss``), each line's raw values faint behind its smoothed
line (static/js/training.js smooths), NaN and Inf marked where the run diverged."""

from __future__ import annotations

from tpuwatch.server.dashboard.charts import Figure, _figure, _iso
from tpuwatch.server.metrics.schemas import TrainingChart, TrainingSeries
from tpuwatch.server.metrics.training import is_loss

SPLITS = ("train", "training", "eval", "evaluation", "val", "valid", "validation", "test")
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")
RAW_OPACITY = 0.25


def merged(data: TrainingSeries | None) -> list[TrainingChart]:
    """The charts with a split's twins together (``train/loss`` with ``eval/loss`` as ``loss``),
    loss first.

    >>> from tpuwatch.server.metrics.schemas import TrainingLine
    >>> ln = lambda n: TrainingLine(name=n, metric=n, host=0, x=[1.0], y=[1.0])
    >>> charts = [TrainingChart(key="lr", section="", x_axis="step", lines=[ln("lr")]),
    ...           TrainingChart(key="eval/loss", section="eval", x_axis="step", lines=[ln("eval/loss")]),
    ...           TrainingChart(key="train/loss", section="train", x_axis="step", lines=[ln("train/loss")])]
    >>> data = TrainingSeries(job_id=1, points=9, charts=charts)
    >>> [(c.key, [l.name for l in c.lines]) for c in merged(data)]
    [('loss', ['train/loss', 'eval/loss']), ('lr', ['lr'])]
    """
    if data is None:
        return []
    out: dict[str, TrainingChart] = {}
    for chart in data.charts:
        section, _, leaf = chart.key.rpartition("/")
        key = leaf if section.lower() in SPLITS else chart.key
        have = out.get(key)
        if have is None:
            out[key] = chart.model_copy(update={"key": key, "section": "" if key == leaf else chart.section})
            continue
        lines = have.lines + chart.lines
        axis = "time" if "time" in (have.x_axis, chart.x_axis) else "step"
        out[key] = have.model_copy(update={"lines": lines, "x_axis": axis})
    for chart in out.values():
        chart.lines.sort(key=lambda ln: (_split_rank(ln.name), ln.name, ln.host))
    return sorted(out.values(), key=lambda c: (not is_loss(c.key), c.section, c.key))


def _split_rank(name: str) -> int:
    section, _, leaf = name.rpartition("/")
    if section.lower() in ("train", "training") or (not section and not leaf.startswith("val_")):
        return 0
    return 1


def training_figure(chart: TrainingChart, job_id: int) -> Figure:
    """One chart of training metrics: for each (name, host) line its raw values, faint, and the
    same values again as the line static/js/training.js smooths; x in steps or time; a dotted red
    line where a value was NaN or infinite (the run diverged there).

    ``layout.meta.training`` tells static/js/training.js which charts take its controls; a trace's
    ``meta.raw`` marks the faint one."""
    hosts = {ln.host for ln in chart.lines}
    by_time = chart.x_axis == "time"
    traces = []
    marks: list = []
    for i, ln in enumerate(chart.lines):
        label = ln.name if len(hosts) == 1 else f"{ln.name} · host {ln.host}"
        color = PALETTE[i % len(PALETTE)]
        x = [_iso(t) for t in ln.x] if by_time else ln.x
        common = {"type": "scatter", "x": x, "y": ln.y, "name": label, "legendgroup": label}
        traces.append(
            {
                **common,
                "mode": "lines",
                "line": {"color": color, "width": 1},
                "opacity": RAW_OPACITY,
                "showlegend": False,
                "hoverinfo": "skip",
                "meta": {"raw": True},
            }
        )
        traces.append(
            {
                **common,
                "mode": "lines" if len(ln.x) > 1 else "markers",
                "line": {"color": color, "width": 2},
                "marker": {"color": color},
                "meta": {"raw": False},
                "hovertemplate": ("%{x}" if by_time else "step %{x}")
                + "<br>%{y:.5g}<extra>"
                + label
                + "</extra>",
            }
        )
        if ln.nonfinite and not marks:
            marks.append((ln.nonfinite[0], ln.name))
    meta = {"zoom": False, "training": chart.key, "job_id": job_id, "x": chart.x_axis}
    fig = _figure(traces, chart.key, "time (UTC)" if by_time else "step", "", meta)
    fig["layout"]["showlegend"] = len(chart.lines) > 1
    fig["layout"]["yaxis"]["rangemode"] = "normal"
    if by_time:
        fig["layout"]["xaxis"]["type"] = "date"
    if marks:
        x, name = marks[0]
        x = _iso(x) if by_time else x
        line = {"color": "#c62828", "dash": "dot", "width": 2}
        fig["layout"]["shapes"] = [
            {"type": "line", "x0": x, "x1": x, "yref": "paper", "y0": 0, "y1": 1, "line": line}
        ]
        fig["layout"]["annotations"] = [
            {
                "x": x,
                "yref": "paper",
                "y": 1,
                "text": f"{name} not finite",
                "showarrow": False,
                "font": {"color": "#c62828", "size": 11},
                "xanchor": "right",
            }
        ]
    return fig


def training_figures(data: TrainingSeries | None) -> list[dict]:
    """The training charts in page order: ``{"key", "section", "figure"}``."""
    job_id = data.job_id if data is not None else 0
    return [{"key": c.key, "section": c.section, "figure": training_figure(c, job_id)} for c in merged(data)]
