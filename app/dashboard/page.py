"""One job in depth: hosts with the straggler marked, error and performance cards, the timeline,
and the chart data. The page and its JSON twin are both this ``job_page`` result."""

from __future__ import annotations

import statistics

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tpuwatch.server.compiles.cards import with_measured
from tpuwatch.server.compiles.service import job_compiles
from tpuwatch.server.dashboard.schemas import HostRow, JobPage
from tpuwatch.server.dashboard.timeline import timeline
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
    the host and time of its first sighting; an error nobody could classify shows as unknown.

    A card's ``line`` and ``log_line`` are one number: the evidence's line in its host's live log
    (``log_number``), the number the log, the card's link and the post-mortem show."""
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
                number = log_number(e.message, e.data or {}, card.get("evidence"))
                seen[key] = {
                    **card,
                    "line": number,
                    "host_index": e.host_index,
                    "ts": e.ts,
                    "event_id": e.id,
                    "log_line": number,
                }
    return list(seen.values())


def log_number(message: str, data: dict, evidence: str | None) -> int | None:
    """The live-log line number of an error's evidence: the agent says where the error's text
    begins (``first_line``) and ends (``line``) in its host's log; the evidence is found in the text.

    >>> text = "Traceback...\\n  File x\\nValueError: bad"
    >>> log_number(text, {"first_line": 40, "line": 42}, "ValueError: bad")
    42
    >>> log_number("boom", {"line": 7}, None), log_number("boom", {}, "boom")
    (7, None)
    """
    first, last = data.get("first_line"), data.get("line")
    first = first if isinstance(first, int) and not isinstance(first, bool) and first > 0 else None
    last = last if isinstance(last, int) and not isinstance(last, bool) and last > 0 else None
    needle = next((ln.strip() for ln in (evidence or "").splitlines() if ln.strip()), "")
    lines = message.splitlines()
    k = next((i for i, ln in enumerate(lines) if needle and needle in ln), None)
    if k is None:
        return last if last is not None else first
    if first is not None:
        return first + k
    if last is not None:
        return max(1, last - (len(lines) - 1 - k))
    return None


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


def load_events(session: Session, job_id: int, limit: int = 2000) -> list[Event]:
    """The job's events but its compilations (thousands in a JAX program: app/compiles reads them)."""
    q = select(Event).where(Event.job_id == job_id, Event.kind != Kind.COMPILE)
    return list(session.scalars(q.order_by(Event.ts, Event.id).limit(limit)))


def annotate_unknowns(session: Session, job: Job, cards: list[dict]) -> None:
    from tpuwatch.server.triage.service import annotate_unknowns as annotate

    annotate(session, job, cards)


def job_page(
    session: Session, job: Job, settings: Settings, points: int = 2000, series: bool = True
) -> JobPage:
    """Everything the job page shows. ``series=False`` leaves out the chart series (the HTML page
    fetches its charts as JSON: dashboard/chartdata.py); the JSON twin has them all."""
    detail, fig = detail_and_figures(session, job, settings)
    events = load_events(session, job.id)
    hosts = mark_stragglers(detail.host_list)
    # A slice draws heatmaps and bands (app/slice), not one line per host and chip.
    big = is_slice(detail.hosts)
    device = {} if big or not series else device_series(session, job.id)
    cards = error_cards(events)
    annotate_unknowns(session, job, cards)  # "seen in 3 other jobs this week"
    early = silent.ended_early_card(job, detail.status, events)
    if early is not None and not any(c.get("category") == "nan_inf" for c in cards):  # divergence says why
        cards.append(early)
    compiles = job_compiles(session, job)
    no_steps = StepSeries(job_id=job.id, points=points, total_steps=job.steps, series=[])
    return JobPage(
        job=detail,
        hosts=hosts,
        flags=silent.flags(cards),
        error_cards=cards,
        failure=failure(detail.status, cards),
        stacks=latest_stacks(events) if detail.status in STOPPED else None,
        config=run_config(events),
        perf_cards=with_measured(perf_card_dicts(session, job, hosts, job_facts(job, events), fig), compiles),
        compiles=compiles,
        figures=fig.as_dict(),
        timeline=timeline(session, job, events),
        steps=no_steps if big or not series else step_series(session, job, points=points),
        training=training_series(session, job.id) if series else None,
        device={k: (v if isinstance(v, str) else [s.model_dump() for s in v]) for k, v in device.items()},
        postmortem_url=f"/jobs/{job.id}/postmortem" if detail.status in POSTMORTEM else None,
        **page_goodput(session, job, settings),
    )


STOPPED = ("failed", "diverged", "lost", "stalled")  # a page that opens on what went wrong
CONFIG_SKIP = {"flops_per_step", "peak_flops", "layer_widths"}


def failure(status: str, cards: list[dict]) -> dict | None:
    """The card a stopped job's page opens on (its title goes in the header)."""
    if status not in STOPPED or not cards:
        return None
    card = next((c for c in cards if c.get("category") != "unknown"), cards[0])
    return {"title": card.get("title"), "category": card.get("category"), "card": card}


def latest_stacks(events) -> dict | None:
    """The last stacks the agent captured (a stall): its threads, the program's main one first."""
    from tpuwatch.server.jobs.stacks import threads

    last = next((e for e in reversed(events) if e.kind == Kind.STACKS), None)
    if last is None:
        return None
    found = [t.__dict__ for t in threads(last.message)]
    return {"host_index": last.host_index, "ts": last.ts, "threads": found, "text": last.message[:20000]}


def run_config(events) -> dict:
    """The run's own config values, as it described itself (``mon.model_info(...)``, the Keras
    callback): scalars, and one level of a nested ``config`` dict."""
    out: dict = {}
    for e in events:
        if e.kind != Kind.MODEL_INFO or not isinstance(e.data, dict):
            continue
        for k, v in e.data.items():
            if k in CONFIG_SKIP:
                continue
            if isinstance(v, dict):
                out.update({f"{k}.{kk}": vv for kk, vv in list(v.items())[:40] if _scalar(vv)})
            elif _scalar(v):
                out[k] = v
    return dict(list(out.items())[:60])


def _scalar(v) -> bool:
    return isinstance(v, (str, int, float, bool)) and len(str(v)) <= 200


def job_live(session: Session, job: Job, settings: Settings) -> dict:
    """What the live fragment shows: the job's status, step count and figures (a light query)."""
    detail, fig = detail_and_figures(session, job, settings)
    info = session.scalars(
        select(Event)
        .where(Event.job_id == job.id, Event.kind == Kind.MODEL_INFO)
        .order_by(Event.ts)
        .limit(50)
    ).all()
    return {"job": detail, "figures": fig.as_dict(), "config": run_config(info)}
