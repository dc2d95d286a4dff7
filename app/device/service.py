"""The device's figures, computed once for every surface: the job page's section, the API, the
post-mortem's last minutes and ``/metrics`` all call ``device_view``.

Each host's figure of a series is its latest round's value, the mean over its chips
(rounds.host_value); the slice's figures are the median, least and greatest over hosts.
"""

from __future__ import annotations

import statistics
import time

from sqlalchemy.orm import Session

from tpuwatch.server.device import catalog, rounds
from tpuwatch.server.device.schemas import CoreView, DeviceView, SeriesFigure
from tpuwatch.server.models import Job

LATEST_WINDOW_S = 60.0  # a host's latest round counts when it is this close to the newest one
CHIPS_UP_TO_HOSTS = 8  # per-chip values in the view for jobs this small


def device_view(
    session: Session, job: Job, until: float | None = None, window: float = LATEST_WINDOW_S
) -> DeviceView:
    """Every series' latest values per host and over the slice (up to ``until``: a post-mortem
    reads the job as it was when it stopped)."""
    last = rounds.last_ts(session, job.id) if until is None else until
    view = DeviceView(job_id=job.id)
    if last is None:
        return view
    found = rounds.load(session, job.id, until=last, window=window)
    latest = rounds.latest(found)
    view.at = max((r.ts for r in latest.values()), default=None)
    view.hosts = len(latest)
    view.series = figures(latest)
    return view


def figures(latest: dict[int, rounds.Round]) -> list[SeriesFigure]:
    names = sorted(rounds.series_names(list(latest.values())), key=catalog.order)
    out = []
    for series in names:
        name, stat = catalog.split(series)
        label, unit, known = catalog.describe(series)
        hosts = {}
        chips = {}
        for host, r in sorted(latest.items()):
            value = rounds.host_value(r.data, series)
            if value is not None:
                hosts[host] = value
            if len(latest) <= CHIPS_UP_TO_HOSTS and (per_chip := rounds.chip_values(r.data, series)):
                chips[host] = per_chip
        fig = SeriesFigure(
            series=series, name=name, stat=stat, label=label, unit=unit, known=known, hosts=hosts, chips=chips
        )
        if hosts:
            fig.p50 = statistics.median(hosts.values())
            fig.min_host = min(hosts, key=lambda h: (hosts[h], h))
            fig.max_host = max(hosts, key=lambda h: (hosts[h], -h))
            fig.min, fig.max = hosts[fig.min_host], hosts[fig.max_host]
        out.append(fig)
    return out


def main_series(names: set[str]) -> list[str]:
    """One series per metric for the charts: a gauge's value, a distribution's p50."""
    picked = {}
    for series in names:
        name, stat = catalog.split(series)
        if stat in ("value", "p50") and name not in picked:
            picked[name] = series
    return sorted(picked.values(), key=catalog.order)


def fmt(value: float | None, unit: str) -> str:
    """A figure as the page prints it.

    >>> fmt(17179869184, "bytes"), fmt(97.25, "%"), fmt(2512.3, "µs"), fmt(0.0042, "s"), fmt(None, "")
    ('16.0 GiB', '97.2%', '2.51 ms', '4.2 ms', '–')
    """
    if value is None:
        return "–"
    if unit == "bytes":
        return f"{value / 2**30:.1f} GiB"
    if unit == "%":
        return f"{value:.1f}%"
    if unit == "µs":
        return f"{value / 1000:.3g} ms" if value >= 1000 else f"{value:.3g} µs"
    if unit == "s":
        return f"{value * 1000:.3g} ms" if value < 1 else f"{value:.3g} s"
    return f"{value:.4g}" + (f" {unit}" if unit else "")


def full_view(session: Session, job: Job, settings, now: float | None = None) -> DeviceView:
    """``device_view`` with the cores' state and the stragglers: the job page's section and the API."""
    from tpuwatch.server.device.cores import core_view
    from tpuwatch.server.device.straggler import stragglers

    now = time.time() if now is None else now
    view = device_view(session, job)
    view.cores = core_view(session, job.id, now, settle=False)
    if view.at is not None and job.status == "running":
        view.stragglers = stragglers(session, job, view.at, settings.straggler_window_seconds)
    return view


def ask_cores(session: Session, job: Job, settings, state, now: float | None = None) -> CoreView:
    """The button: ask a stalled job's hosts for their cores' state (429 within a minute of the last)."""
    from tpuwatch.server.device import asks
    from tpuwatch.server.device.cores import core_view
    from tpuwatch.server.errors import Conflict
    from tpuwatch.server.jobs.status import effective_status

    now = time.time() if now is None else now
    status = effective_status(job, now, settings)
    if status != "stalled":
        raise Conflict(f"job {job.id} is {status}, not stalled: its cores are read when it stalls")
    row = asks.ask(session, job.id, "button", now, gap=asks.BUTTON_GAP_S)
    board = getattr(state, "device_asks", None)
    if board is not None:
        board.note(job.id, row.id, row.asked_at)
    return core_view(session, job.id, now, settle=False) or CoreView(asked_at=row.asked_at)


def page_context(session: Session, job: Job, settings) -> dict:
    """``device`` for templates/jobs/_device.html (nothing when the job sent no rounds)."""
    view = full_view(session, job, settings)
    if view.at is None and view.cores is None:
        return {}
    from tpuwatch.server.device.charts import chart_keys

    keys = chart_keys(main_series({s.series for s in view.series}), view.hosts)
    hosts = sorted({h for s in view.series for h in s.hosts})
    return {"device": view, "device_fmt": fmt, "device_charts": keys, "device_hosts": hosts}


def chart_group(session: Session, job: Job) -> dict:
    """The job page's device charts (``GET /api/v1/jobs/{id}/charts?group=tpu``)."""
    from tpuwatch.server.device.charts import device_figures

    found = rounds.load(session, job.id)
    return device_figures(found, main_series(rounds.series_names(found)))


POSTMORTEM_WINDOW_S = 600.0
POSTMORTEM_CHARTS = (catalog.DUTY, catalog.HBM_BW, catalog.COLLECTIVE, catalog.HLO_TIMING, catalog.QUEUE)


def postmortem_part(session: Session, job: Job, end: float) -> tuple[DeviceView | None, dict]:
    """The device in the minutes before the end: each host's last values, the cores' state read on
    the last ask, and charts of the metrics that tell a hang or a straggler (duty cycle, HBM
    bandwidth, collective latency, HLO timing and queue)."""
    from tpuwatch.server.device.charts import device_figures
    from tpuwatch.server.device.cores import core_view

    found = rounds.load(session, job.id, until=end, window=POSTMORTEM_WINDOW_S)
    cores = core_view(session, job.id, end, settle=False)
    if not found and cores is None:
        return None, {}
    view = device_view(session, job, until=end, window=POSTMORTEM_WINDOW_S)
    view.cores = cores
    names = rounds.series_names(found)
    wanted = [s for s in main_series(names) if catalog.split(s)[0] in POSTMORTEM_CHARTS]
    return view, device_figures(found, wanted)
