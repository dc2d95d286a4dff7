"""Training metrics (loss, accuracy, learning rate, ...): what ``mon.log``, ``mon.metric`` and the
Keras callback record besides the device metrics, grouped into charts and downsampled like step
times (MinMaxLTTB keeps a loss spike).

Charts come loss first; a Keras ``val_x`` shares the chart of ``x``; names with a ``section/``
prefix (``train/loss``, ``eval/accuracy``) are grouped by it.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.metrics.schemas import TrainingChart, TrainingLine, TrainingSeries
from tpuwatch.server.models import Job, Metric
from tpuwatch.server.series.buckets import RAW_LIMIT, band, bucket_rows, bucketed
from tpuwatch.server.series.downsample import downsample
from tpuwatch.wire import MetricName

MAX_ROWS = 400_000  # samples one request reads, all training metrics together


def display_name(metric: str) -> str:
    """Example:

    >>> display_name("keras.val_loss"), display_name("train/loss")
    ('val_loss', 'train/loss')"""
    return metric[len(MetricName.KERAS_PREFIX) :] if metric.startswith(MetricName.KERAS_PREFIX) else metric


def chart_key(name: str) -> tuple[str, str]:
    """(section, key) of a display name: ``val_`` joins its training twin's chart.

    >>> chart_key("val_loss"), chart_key("eval/accuracy"), chart_key("lr")
    (('', 'loss'), ('eval', 'eval/accuracy'), ('', 'lr'))
    """
    section, _, leaf = name.rpartition("/")
    if leaf.startswith("val_") and len(leaf) > 4:
        leaf = leaf[4:]
    return section, f"{section}/{leaf}" if section else leaf


def is_loss(key: str) -> bool:
    return "loss" in key.rpartition("/")[2].lower()


def _order(chart: TrainingChart) -> tuple:
    # Loss first (the first thing anyone looks at), then by section and name.
    return (not is_loss(chart.key), chart.section, chart.key)


def training_series(
    session: Session, job_id: int, points: int = 1000, since_step: int | None = None, only_loss: bool = False
) -> TrainingSeries:
    """A job's training metrics as charts, each line at most ``points`` points.

    ``since_step`` keeps the samples from that step on (the post-mortem's "before the end").
    A line of more than ``RAW_LIMIT`` samples is read as buckets (series/buckets.py)."""
    where = [
        Metric.job_id == job_id,
        ~Metric.name.startswith(MetricName.DEVICE_PREFIX, autoescape=True),
        ~Metric.name.startswith(MetricName.PIPELINE_PREFIX, autoescape=True),  # the input-wait chart's
    ]
    if since_step is not None:
        where.append(Metric.step >= since_step)
    # One pass over the lines' samples, bucketed by step: each line's count, whether it has a step
    # throughout and NaNs, and the band a long line is drawn as.
    last = session.scalar(select(Job.last_step).where(Job.id == job_id)) or 0
    lo = float(since_step or 0)
    scan = bucket_rows(
        session, where, Metric.step, lo, max(float(last), lo + 1), [Metric.name, Metric.host_index]
    )
    stats = {}
    step_bands = {}
    for (name, host), rows in scan.items():
        if not only_loss or is_loss(chart_key(display_name(name))[1]):
            n, n_value = sum(r[5] for r in rows), sum(r[6] for r in rows)
            stats[(name, host)] = (n, all(r[0] is not None for r in rows), n_value < n)
            if n > RAW_LIMIT:
                step_bands[(name, host)] = band(rows)
    small = sorted({name for (name, _), (n, *_) in stats.items() if n <= RAW_LIMIT})
    groups: dict[tuple[str, int], list] = {}
    if small:
        q = select(Metric.name, Metric.host_index, Metric.step, Metric.ts, Metric.value).where(
            *where, Metric.name.in_(small)
        )
        rows = session.connection().execute(
            q.order_by(Metric.name, Metric.host_index, Metric.ts).limit(MAX_ROWS)
        )
        for name, host, step, ts, value in rows:
            if (name, host) in stats:
                groups.setdefault((name, host), []).append((step, ts, value))

    bands: dict[bool, dict] = {True: step_bands}  # long lines by time: read when first needed

    def line(metric: str, host: int, by_step: bool) -> TrainingLine:
        samples = groups.get((metric, host))
        if samples is not None:
            return _line(metric, display_name(metric), host, samples, by_step, points)
        if by_step not in bands:
            bands[by_step] = _bands(session, where, stats, by_step)
        nulls = stats[(metric, host)][2]
        return _band_line(session, where, metric, host, by_step, bands[by_step], points, nulls)

    charts: dict[str, TrainingChart] = {}
    for (metric, host), (_, by_step, _) in stats.items():
        name = display_name(metric)
        section, key = chart_key(name)
        if (metric, host) in groups:
            by_step = all(s is not None for s, _, _ in groups[(metric, host)])
        chart = charts.get(key)
        if chart is None:
            chart = charts[key] = TrainingChart(
                key=key, section=section, x_axis="step" if by_step else "time", lines=[]
            )
        elif chart.x_axis == "step" and not by_step:  # one line without steps: the chart goes by time
            chart.x_axis = "time"
        chart.lines.append(line(metric, host, by_step))
    for chart in charts.values():
        if chart.x_axis == "time":  # lines built on steps are redrawn on their times
            chart.lines = [line(ln.metric, ln.host, False) for ln in chart.lines]
        chart.lines.sort(key=lambda ln: (ln.name.rpartition("/")[2].startswith("val_"), ln.name, ln.host))
    return TrainingSeries(job_id=job_id, points=points, charts=sorted(charts.values(), key=_order))


def _bands(session, where, stats, by_step: bool) -> dict:
    big = sorted({name for (name, _), (n, *_) in stats.items() if n > RAW_LIMIT})
    x_col = Metric.step if by_step else Metric.ts
    where = [*where, Metric.name.in_(big)] + ([Metric.step.is_not(None)] if by_step else [])
    lo, hi = session.execute(select(func.min(x_col), func.max(x_col)).where(*where)).one()
    if lo is None:
        return {}
    return bucketed(session, where, x_col, float(lo), float(hi), keys=[Metric.name, Metric.host_index])


def _band_line(session, where, metric, host, by_step, bands, points, nulls: bool) -> TrainingLine:
    x, y = bands.get((metric, host), (np.zeros(0), np.zeros(0)))
    idx = downsample(x, y, points) if len(x) else np.arange(0)
    x_col = Metric.step if by_step else Metric.ts
    one = [*where, Metric.name == metric, Metric.host_index == host, Metric.value.is_(None)]
    bad = session.scalars(select(x_col).where(*one).order_by(x_col).limit(100)).all() if nulls else []
    return TrainingLine(
        name=display_name(metric),
        metric=metric,
        host=host,
        x=x[idx].tolist(),
        y=y[idx].tolist(),
        nonfinite=[float(v) for v in bad],
    )


def _line(metric: str, name: str, host: int, samples: list, by_step: bool, points: int) -> TrainingLine:
    col = 0 if by_step else 1
    xs = np.array([s[col] for s in samples], dtype=np.float64)
    ys = np.array([np.nan if s[2] is None else s[2] for s in samples], dtype=np.float64)
    order = np.argsort(xs, kind="stable")
    xs, ys = xs[order], ys[order]
    finite = np.isfinite(ys)
    x, y = np.ascontiguousarray(xs[finite]), np.ascontiguousarray(ys[finite])
    idx = downsample(x, y, points) if len(x) else np.arange(0)
    return TrainingLine(
        name=name,
        metric=metric,
        host=host,
        x=x[idx].tolist(),
        y=y[idx].tolist(),
        nonfinite=xs[~finite][:100].tolist(),
    )
