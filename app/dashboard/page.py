"""One job in depth: hosts with the straggler marked, error and performance cards, the timeline,
and the chart data. The page and its JSON twin are both this ``job_page`` result."""

from __future__ import annotations

import statistics

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.dashboard.schemas import HostRow, JobPage, TimelineItem
from tpuwatch.server.goodput.service import page_goodput
from tpuwatch.server.jobs import figures, silent
from tpuwatch.server.jobs.schemas import HostOut
from tpuwatch.server.jobs.service import detail_and_figures
from tpuwatch.server.jobs.status import POSTMORTEM
from tpuwatch.server.metrics.service import HBM_TOTAL, HBM_USED, device_series
from tpuwatch.server.metrics.training import training_series
from tpuwatch.server.models import Event, Job, Metric, Step
from tpuwatch.server.series.schemas import StepSeries
from tpuwatch.server.series.service import step_series
from tpuwatch.server.settings import Settings
from tpuwatch.server.slice.service import is_slice
from tpuwatch.server.triage.summary import summary_line
from tpuwatch.wire import Kind

STRAGGLER = 1.2  # a host whose median step time is 20% above the median of the others
TIMELINE_KINDS = (
    Kind.START,
    Kind.CHECKPOINT,
    Kind.NODE_STATE,
    Kind.EXIT,
    Kind.ERROR,
    Kind.EPOCH,
    Kind.ARCHIVE,
    Kind.HANG_HINT,
    Kind.STACKS,
)
# What the perf cards can use, when the job says it (model_info events or run attributes).
JOB_FACTS = ("global_batch_size", "replicas", "layer_widths", "steps_per_execution", "parameters")


def mark_stragglers(hosts: list[HostOut]) -> list[HostRow]:
    """Hosts with ``straggler`` set where the median step time is over 1.2x the median of the other
    hosts (with two hosts the median of both would hide a slow one: it is their mean).

    >>> from tpuwatch.server.jobs.schemas import HostOut
    >>> h = lambda i, p: HostOut(host_index=i, hostname="", started_at=0, last_seen_at=0, ended_at=None,
    ...     exit_code=None, exit_signal=None, steps=1, last_step=1, last_step_at=0, step_time_p50=p)
    >>> [r.straggler for r in mark_stragglers([h(0, 1.0), h(1, 1.0), h(2, 1.5)])]
    [False, False, True]
    """
    rows = []
    known = sorted(h.step_time_p50 for h in hosts if h.step_time_p50)
    for h in hosts:
        if len(known) > 16:  # a slice: one host barely moves the median, and n medians cost n²
            mid = statistics.median(known)
        else:
            others = [o.step_time_p50 for o in hosts if o is not h and o.step_time_p50]
            mid = statistics.median(others) if others else None
        slowdown = h.step_time_p50 / mid if mid and h.step_time_p50 else None
        rows.append(
            HostRow(**h.model_dump(), straggler=bool(slowdown and slowdown > STRAGGLER), slowdown=slowdown)
        )
    return rows


def error_cards(events) -> list[dict]:
    """The cards of the job's error events (classified at ingest), one per distinct diagnosis, with
    the host and time of its first sighting; an error nobody could classify shows as unknown."""
    seen: dict[tuple, dict] = {}
    for e in events:
        if e.kind != Kind.ERROR:
            continue
        cards = (e.data or {}).get("cards") or []
        if not cards:
            first_line = summary_line(e.message)[:300]  # what happened, not the preamble
            cards = [
                {
                    "category": "unknown",
                    "subtype": "",
                    "title": "Unclassified error",
                    "confidence": 0.0,
                    "evidence": first_line,
                    "line": None,
                    "explanation": "No known signature matched this error; the log below is what it printed.",
                    "fixes": [],
                }
            ]
        for card in cards[:3]:
            if not isinstance(card, dict):
                continue
            key = (card.get("category"), card.get("subtype"), card.get("evidence"))
            if key not in seen:
                line = (e.data or {}).get("line")
                seen[key] = {
                    **card,
                    "host_index": e.host_index,
                    "ts": e.ts,
                    "event_id": e.id,
                    "log_line": line if isinstance(line, int) and line > 0 else None,
                }
    return list(seen.values())


def job_facts(job: Job, events) -> dict:
    facts = {k: job.attrs[k] for k in JOB_FACTS if k in (job.attrs or {})}
    for e in events:
        if e.kind == Kind.MODEL_INFO and e.data:
            facts.update({k: e.data[k] for k in JOB_FACTS if k in e.data})
    return facts


def perf_card_dicts(
    session: Session, job: Job, hosts: list[HostRow], facts: dict, fig: figures.Figures
) -> list[dict]:
    """Performance cards from the triage engine, fed with what the server knows about the job and
    the figures the page shows (so a card quotes the page's numbers)."""
    from tpuwatch.server.triage.perf import perf_cards

    first_host = hosts[0].host_index if hosts else 0
    base = select(Step.duration, Step.input_wait).where(Step.job_id == job.id, Step.host_index == first_host)
    rows = session.connection().execute(base.order_by(Step.step.desc()).limit(2000)).all()[::-1]
    if len(rows) == 2000:  # a long run: the first step (compilation) still counts
        rows = session.execute(base.order_by(Step.step).limit(1)).all() + rows
    peaks = dict(
        session.execute(
            select(Metric.name, func.max(Metric.value))
            .where(Metric.job_id == job.id, Metric.name.in_((HBM_USED, HBM_TOTAL)))
            .group_by(Metric.name)
        ).all()
    )
    metrics = {
        "step_times": [r[0] for r in rows],
        "input_waits": [r[1] for r in rows],
        "hbm_used": peaks.get(HBM_USED),
        "hbm_limit": peaks.get(HBM_TOTAL),
        "hbm_share": fig.hbm_share,
        "input_share": fig.input_share,
        "window_steps": fig.window_steps,
        "step_time_p50": fig.step_time_p50,
        "host_step_times": {f"host {h.host_index}": h.step_time_p50 for h in hosts if h.step_time_p50},
        **facts,
    }
    try:
        cards = perf_cards(metrics)
    except (TypeError, ValueError):  # a fact of the wrong shape from a job must not break the page
        cards = []
    return [c.to_dict() for c in cards]


def timeline(session: Session, job: Job, events) -> list[TimelineItem]:
    """Start, first step, checkpoints, node-state changes, alerts, errors and exit, in time order."""
    items = []
    for e in events:
        if e.kind not in TIMELINE_KINDS:
            continue
        first_line = next((ln for ln in e.message.splitlines() if ln.strip()), "")
        data = e.data or {}
        detail = {
            Kind.NODE_STATE: " ".join(str(data.get(k, "")) for k in ("state", "health") if data.get(k)),
            Kind.EXIT: f"code {data.get('code')}"
            if data.get("code") is not None
            else str(data.get("signal") or ""),
            Kind.ARCHIVE: str(data.get("url", "")),
            Kind.CHECKPOINT: str(data.get("path", data.get("step", ""))),
        }.get(e.kind, "")
        items.append(
            TimelineItem(
                ts=e.ts, kind=e.kind, host_index=e.host_index, title=first_line[:200], detail=detail[:300]
            )
        )
    if job.first_step_at is not None:
        items.append(TimelineItem(ts=job.first_step_at, kind="first_step", title="first step (compiled)"))
    items.extend(_alert_items(session, job.id))
    return sorted(items, key=lambda i: i.ts)


def _alert_items(session: Session, job_id: int) -> list[TimelineItem]:
    from tpuwatch.server.models import Alert

    out = []
    for a in session.scalars(
        select(Alert).where(Alert.job_id == job_id).order_by(Alert.started_at).limit(50)
    ):
        out.append(TimelineItem(ts=a.started_at, kind="alert", title=f"{a.condition}: {a.summary}"[:200]))
        if a.resolved_at:
            out.append(TimelineItem(ts=a.resolved_at, kind="alert", title=f"{a.condition} resolved"))
    return out


def load_events(session: Session, job_id: int, limit: int = 2000) -> list[Event]:
    return list(
        session.scalars(select(Event).where(Event.job_id == job_id).order_by(Event.ts, Event.id).limit(limit))
    )


def job_page(session: Session, job: Job, settings: Settings, points: int = 2000) -> JobPage:
    detail, fig = detail_and_figures(session, job, settings)
    events = load_events(session, job.id)
    hosts = mark_stragglers(detail.host_list)
    # A slice draws heatmaps and bands (app/slice), not one line per host and chip.
    big = is_slice(detail.hosts)
    device = {} if big else device_series(session, job.id)
    cards = error_cards(events)
    early = silent.ended_early_card(job, detail.status, events)
    if early is not None and not any(c.get("category") == "nan_inf" for c in cards):  # divergence says why
        cards.append(early)
    return JobPage(
        job=detail,
        hosts=hosts,
        flags=silent.flags(cards),
        error_cards=cards,
        perf_cards=perf_card_dicts(session, job, hosts, job_facts(job, events), fig),
        figures=fig.as_dict(),
        timeline=timeline(session, job, events),
        steps=StepSeries(job_id=job.id, points=points, total_steps=job.steps, series=[])
        if big
        else step_series(session, job, points=points),
        training=training_series(session, job.id),
        device={k: (v if isinstance(v, str) else [s.model_dump() for s in v]) for k, v in device.items()},
        postmortem_url=f"/jobs/{job.id}/postmortem" if detail.status in POSTMORTEM else None,
        **page_goodput(session, job, settings),
    )


def job_live(session: Session, job: Job, settings: Settings) -> dict:
    """What the live fragment shows: the job's status, step count and figures (a light query)."""
    detail, fig = detail_and_figures(session, job, settings)
    return {"job": detail, "figures": fig.as_dict()}
