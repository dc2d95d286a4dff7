"""Building a post-mortem from what is stored: phases, the last steps, the HBM trend before the
end, the error card with the log around its evidence, the archived log and the previous good run."""

from __future__ import annotations

import time
from urllib.parse import quote

from sqlalchemy import select
from sqlalchemy.orm import Session

from tpuwatch.server.dashboard.page import error_cards, load_events
from tpuwatch.server.device.service import postmortem_part
from tpuwatch.server.goodput.service import page_goodput
from tpuwatch.server.jobs.schemas import JobDetail
from tpuwatch.server.jobs.service import job_detail
from tpuwatch.server.logs.service import tail
from tpuwatch.server.metrics.service import device_series
from tpuwatch.server.metrics.training import training_series
from tpuwatch.server.models import Event, Job, JobHost, Step
from tpuwatch.server.postmortem.schemas import LastStep, LogLine, Phase, PostMortem, RunSummary
from tpuwatch.server.series.schemas import StepSeries
from tpuwatch.server.series.service import step_series
from tpuwatch.server.settings import Settings
from tpuwatch.server.slice.bands import BANDS_ABOVE, chip_bands
from tpuwatch.server.slice.hosts import host_stats, slow_lines, slowest, stopped_first
from tpuwatch.server.slice.schemas import WhichHost
from tpuwatch.server.slice.service import is_slice, slice_data
from tpuwatch.server.web import secs
from tpuwatch.wire import Kind

LAST_STEPS = 20  # rows of the "last steps" table
LAST_WINDOW = 500  # steps per host in the "last steps" chart
LOSS_WINDOW = 2000  # steps of loss before the end
HBM_WINDOW_S = 1800.0  # HBM trend: the half hour before the end
LOG_RADIUS = 15  # lines each side of the evidence


def end_time(job: Job, detail: JobDetail) -> float:
    """When the run ended: its exit, else (lost) the last word from any host."""
    return detail.ended_at or job.last_seen_at


def phases(job: Job, detail: JobDetail, card: dict | None) -> list[Phase]:
    end = end_time(job, detail)
    out = [Phase(name="start", ts=job.started_at, detail=f"{detail.hosts} host(s)")]
    if job.first_step_at is not None:
        out.append(
            Phase(
                name="compile",
                ts=job.started_at,
                duration=max(0.0, job.first_step_at - job.started_at),
                detail="start to first step: startup and XLA compilation",
            )
        )
        if job.last_step_at is not None:
            out.append(
                Phase(
                    name="steady",
                    ts=job.first_step_at,
                    duration=max(0.0, job.last_step_at - job.first_step_at),
                    detail=f"{detail.steps} steps, p50 {detail.step_time_p50 or 0:.3f} s",
                )
            )
            out.append(Phase(name="last_step", ts=job.last_step_at, detail=f"step {job.last_step}"))
    else:
        out.append(Phase(name="compile", ts=job.started_at, detail="no step was ever recorded"))
    how = {"failed": "failed", "lost": "went silent (lost)"}.get(detail.status, detail.status)
    what = []
    if detail.exit_code is not None:
        what.append(f"exit code {detail.exit_code}")
    if detail.exit_signal:
        what.append(f"signal {detail.exit_signal}")
    if card:
        what.append(f"{card.get('category')}: {card.get('title')}")
    # How long it went without a step before the end (none when another host stepped on after).
    quiet = end - job.last_step_at if job.last_step_at and end >= job.last_step_at else None
    out.append(Phase(name="failure", ts=end, duration=quiet, detail=f"{how}; " + ", ".join(what)))
    return out


def log_around(session: Session, job_id: int, event: Event | None, card: dict | None) -> list[LogLine]:
    """The lines around the evidence, numbered as the job page's live log numbers them (the card's
    line): from the host's live log when it holds them, else from the error event itself."""
    if event is None:
        return []
    number = card.get("log_line") if card else None
    if isinstance(number, int):
        page = tail(session, job_id, host=event.host_index, around=number)
        near = [ln for ln in page.lines if abs(ln.line - number) <= LOG_RADIUS]
        if any(ln.line == number for ln in near):
            return [LogLine(number=ln.line, text=ln.text[:2000], hit=ln.line == number) for ln in near]
    return log_window(event, card.get("evidence") if card else None)


def log_window(event: Event | None, evidence: str | None) -> list[LogLine]:
    """The lines around the evidence in the error event (its context lines, then its own text),
    for an error whose lines the live log does not hold."""
    if event is None:
        return []
    context = (event.data or {}).get("context")
    lines = [str(x) for x in context] if isinstance(context, list) else []
    lines += event.message.splitlines()
    needle = (evidence or "").strip().splitlines()[0].strip() if (evidence or "").strip() else ""
    hit = next((i for i, ln in enumerate(lines) if needle and needle in ln), None)
    if hit is None:
        hit = len(lines) - 1  # no evidence line: the end of the traceback is where it died
    lo, hi = max(0, hit - LOG_RADIUS), min(len(lines), hit + LOG_RADIUS + 1)
    return [LogLine(number=i + 1, text=lines[i][:2000], hit=bool(needle) and i == hit) for i in range(lo, hi)]


def browsable(url: str | None) -> str | None:
    """A link a browser can open for an archived log; never a javascript: or other scheme.

    >>> browsable("gs://bucket/logs/run 1.log")
    'https://storage.cloud.google.com/bucket/logs/run%201.log'
    >>> browsable("javascript:alert(1)") is None
    True
    """
    if not url:
        return None
    if url.startswith("gs://"):
        return "https://storage.cloud.google.com/" + quote(url[5:], safe="/")
    if url.startswith(("https://", "http://")):
        return url
    return None


def summary(job: Job, detail: JobDetail) -> RunSummary:
    end = detail.ended_at or job.last_seen_at
    return RunSummary(
        id=job.id,
        name=job.name,
        status=detail.status,
        steps=detail.steps,
        step_time_p50=detail.step_time_p50,
        input_share=detail.input_share,
        mfu=detail.mfu,
        duration=(end - job.started_at) if end else None,
        hosts=detail.hosts,
        started_at=job.started_at,
        url=f"/jobs/{job.id}",
    )


def versus(this: RunSummary, previous: RunSummary | None) -> str | None:
    """How this run's steps compare with the last good run's, in the right direction.

    >>> a = dict(id=1, name="j", status="failed", steps=1, duration=1.0, hosts=1, started_at=0, url="")
    >>> versus(RunSummary(**a, step_time_p50=0.0071), RunSummary(**a, step_time_p50=0.0084))
    'steps 15% faster than the last good run (7.1 ms vs 8.4 ms)'
    """
    if previous is None or not this.step_time_p50 or not previous.step_time_p50:
        return None
    ratio = this.step_time_p50 / previous.step_time_p50
    if abs(ratio - 1) < 0.005:
        how = "as fast as"
    elif ratio < 1:
        how = f"{1 - ratio:.0%} faster than"
    else:
        how = f"{ratio - 1:.0%} slower than"
    return f"steps {how} the last good run ({secs(this.step_time_p50)} vs {secs(previous.step_time_p50)})"


def previous_success(session: Session, job: Job, settings: Settings) -> RunSummary | None:
    prev = session.scalar(
        select(Job)
        .where(
            Job.project_id == job.project_id,
            Job.name == job.name,
            Job.status == "succeeded",
            Job.diverged_at.is_(None),  # a run whose loss went NaN is no good run to compare with
            Job.started_at < job.started_at,
            Job.id != job.id,
        )
        .order_by(Job.started_at.desc())
        .limit(1)
    )
    return summary(prev, job_detail(session, prev, settings)) if prev is not None else None


def postmortem(session: Session, job: Job, settings: Settings) -> PostMortem:
    """The post-mortem of ``job`` (any status: a running job gets one too, with no failure yet)."""
    detail = job_detail(session, job, settings)
    events = load_events(session, job.id)
    errors = [e for e in events if e.kind == Kind.ERROR]
    cards = error_cards(errors[-1:]) if errors else []  # the error nearest the end is what stopped it
    card = cards[0] if cards else None
    end = end_time(job, detail)
    last = session.execute(
        select(Step.host_index, Step.step, Step.ts, Step.duration, Step.input_wait)
        .where(Step.job_id == job.id)
        .order_by(Step.ts.desc())
        .limit(LAST_STEPS)
    ).all()
    hosts = session.scalar(select(JobHost.id).where(JobHost.job_id == job.id).limit(1))
    # Step 1 is mostly XLA compilation (the "compile" phase): on this chart it would flatten the rest.
    last_step = job.last_step or 0
    window_start = max(2 if last_step > 1 else 0, last_step - LAST_WINDOW) if hosts else None
    archive = next(
        (e for e in reversed(events) if e.kind == Kind.ARCHIVE and (e.data or {}).get("url")), None
    )
    location = str(archive.data["url"]) if archive else None
    # A slice's last steps are a heatmap and bands over hosts (one line per host would be 1,024).
    big = is_slice(detail.hosts)
    this_run, previous = summary(job, detail), previous_success(session, job, settings)
    device, device_figures = postmortem_part(session, job, end)
    return PostMortem(
        job=detail,
        phases=phases(job, detail, card),
        last_steps=[
            LastStep(host_index=h, step=s, ts=t, duration=d, input_wait=w) for h, s, t, d, w in last[::-1]
        ],
        last_steps_series=(
            StepSeries(job_id=job.id, points=1000, total_steps=job.steps, series=[])
            if big
            else step_series(session, job, points=1000, start=window_start)
        ),
        last_steps_slice=slice_data(session, job, start=window_start) if big else None,
        loss=training_series(
            session, job.id, points=1000, since_step=max(0, last_step - LOSS_WINDOW), only_loss=True
        ),
        hbm=_device(session, job.id, end),
        error_card=card,
        other_cards=error_cards(errors[:-1])[:5] if len(errors) > 1 else [],
        log=log_around(session, job.id, errors[-1] if errors else None, card),
        log_host=errors[-1].host_index if errors else None,
        archive_url=browsable(location),
        archive_location=location,
        previous=previous,
        this_run=this_run,
        vs_previous=versus(this_run, previous),
        which_host=which_host(session, job, end) if detail.hosts > 1 else None,
        device=device,
        device_figures=device_figures,
        **page_goodput(session, job, settings),
    )


def _device(session: Session, job_id: int, end: float) -> dict:
    """HBM and duty cycle over the half hour before the end: a line per chip, or bands past 64 chips."""
    out: dict = {}
    for key, value in device_series(session, job_id, since=end - HBM_WINDOW_S).items():
        if not isinstance(value, str) and len(value) > BANDS_ABOVE:
            value = chip_bands(value)
        out[key] = value if isinstance(value, str) else [s.model_dump() for s in value]
    return out


def which_host(session: Session, job: Job, end: float) -> WhichHost:
    """The hosts that stopped first (as of the end) and the slowest ones, with their sentences."""
    found = stopped_first(session, job, end)
    found.slowest = slowest(host_stats(session, job))
    found.lines = found.lines + slow_lines(found.slowest)
    return found


def generated_at() -> float:
    return time.time()
