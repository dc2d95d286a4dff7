"""Alerts for people and tools: list, detail, acknowledge, silence, and the channels they go to."""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

from fastapi import HTTPException
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from app.alerts.models import Alert, AlertChannel, AlertDelivery, AlertLog
from app.alerts.schemas import (
    AlertDetail,
    AlertList,
    AlertLogOut,
    AlertOut,
    ChannelList,
    ChannelOut,
    DeliveryOut,
)
from app.models import Job, Project
from app.tokens.service import Principal, get_or_create_project

STATES = ("open", "acknowledged", "silenced", "resolved")
EMAIL = re.compile(r"^[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+$")


def alert_state(alert: Alert, now: float) -> str:
    """open | acknowledged | silenced | resolved, as the page groups them."""
    if alert.state == "resolved":
        return "resolved"
    if alert.silenced_until is not None and alert.silenced_until > now:
        return "silenced"
    if alert.acked_at is not None:
        return "acknowledged"
    return "open"


def _out(alert: Alert, job: str, project: str, now: float) -> dict:
    return dict(
        id=alert.id,
        job_id=alert.job_id,
        job=job,
        project=project,
        condition=alert.condition,
        state=alert_state(alert, now),
        summary=alert.summary,
        details=alert.details or {},
        started_at=alert.started_at,
        updated_at=alert.updated_at,
        resolved_at=alert.resolved_at,
        acked_at=alert.acked_at,
        acked_by=alert.acked_by,
        silenced_until=alert.silenced_until,
        notifications=alert.notifications,
        url=f"/api/v1/alerts/{alert.id}",
        job_url=f"/jobs/{alert.job_id}",
    )


def list_alerts(
    session: Session, principal: Principal, state: str | None = None, limit: int = 200
) -> AlertList:
    """Alerts the principal may see: open ones first, then the newest."""
    q = (
        select(Alert, Job.name, Project.name)
        .join(Job, Job.id == Alert.job_id)
        .join(Project, Project.id == Alert.project_id)
        .order_by(Alert.open_key.is_(None), Alert.started_at.desc(), Alert.id.desc())
    )
    if principal.project_id is not None:
        q = q.where(Alert.project_id == principal.project_id)
    if state == "resolved":
        q = q.where(Alert.state == "resolved")
    elif state is not None:
        q = q.where(Alert.state == "firing")
    now = time.time()
    rows = [
        _out(a, job, proj, now) for a, job, proj in session.execute(q.limit(limit * 4 if state else limit))
    ]
    if state:
        rows = [r for r in rows if r["state"] == state][:limit]
    return AlertList(alerts=[AlertOut(**r) for r in rows])


def visible_alert(session: Session, principal: Principal, alert_id: int) -> Alert:
    alert = session.get(Alert, alert_id)
    if alert is None or (principal.project_id is not None and alert.project_id != principal.project_id):
        raise HTTPException(404, f"no alert {alert_id} in this project")
    return alert


def alert_detail(session: Session, alert: Alert) -> AlertDetail:
    job, project = session.execute(
        select(Job.name, Project.name)
        .join(Project, Project.id == Job.project_id)
        .where(Job.id == alert.job_id)
    ).one()
    history = session.scalars(
        select(AlertLog).where(AlertLog.alert_id == alert.id).order_by(AlertLog.id)
    ).all()
    deliveries = session.scalars(
        select(AlertDelivery).where(AlertDelivery.alert_id == alert.id).order_by(AlertDelivery.id)
    ).all()
    return AlertDetail(
        **_out(alert, job, project, time.time()),
        history=[AlertLogOut.model_validate(h, from_attributes=True) for h in history],
        deliveries=[DeliveryOut.model_validate(d, from_attributes=True) for d in deliveries],
    )


def _who(principal: Principal) -> str:
    return (
        principal.project
        if principal.token_id is None
        else f"{principal.project} (token {principal.token_id})"
    )


def acknowledge(session: Session, principal: Principal, alert: Alert) -> Alert:
    """Someone is on it: no more repeats (a change of condition or the resolve still notifies)."""
    if alert.state == "resolved":
        raise HTTPException(409, "this alert is already resolved")
    now = time.time()
    alert.acked_at, alert.acked_by, alert.updated_at = now, _who(principal)[:100], now
    session.add(AlertLog(alert_id=alert.id, ts=now, action="acked", detail=f"by {_who(principal)}"))
    session.flush()
    return alert


def silence(session: Session, principal: Principal, alert: Alert, seconds: int) -> Alert:
    """No notifications for ``seconds``; the alert stays on the page. ``seconds=0`` lifts it."""
    if alert.state == "resolved":
        raise HTTPException(409, "this alert is already resolved")
    now = time.time()
    alert.silenced_until = now + seconds if seconds > 0 else None
    alert.updated_at = now
    detail = f"for {seconds} s by {_who(principal)}" if seconds > 0 else f"lifted by {_who(principal)}"
    session.add(
        AlertLog(alert_id=alert.id, ts=now, action="silenced" if seconds > 0 else "unsilenced", detail=detail)
    )
    session.flush()
    return alert


# -- channels ---------------------------------------------------------------------------------


def validate_target(kind: str, target: str) -> str:
    """The target, stripped, or ValueError saying what is wrong with it."""
    target = target.strip()
    if kind == "webhook":
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("a webhook must be an http:// or https:// URL")
    elif kind == "email":
        if not EMAIL.match(target):
            raise ValueError("not an email address")
    else:
        raise ValueError("kind must be webhook or email")
    return target


def _project_for(session: Session, principal: Principal, project: str | None) -> Project:
    if principal.project_id is not None:
        if project not in (None, "", principal.project):
            raise HTTPException(403, "a token manages its own project's channels only")
        return session.get(Project, principal.project_id)
    if not project:
        raise HTTPException(422, "say which project the channel is for")
    return get_or_create_project(session, project)


def require_manager(principal: Principal) -> None:
    # Read-only viewers may acknowledge and silence (on-call people), not reroute alerts.
    if principal.project_id is not None and principal.scope != "full":
        raise HTTPException(403, "managing channels needs a full project token")


def list_channels(session: Session, principal: Principal | None, project: str | None = None) -> ChannelList:
    q = select(AlertChannel, Project.name).join(Project, Project.id == AlertChannel.project_id)
    if principal is not None and principal.project_id is not None:
        q = q.where(AlertChannel.project_id == principal.project_id)
    if project:
        q = q.where(Project.name == project)
    rows = session.execute(q.order_by(Project.name, AlertChannel.id)).all()
    return ChannelList(
        channels=[
            ChannelOut(
                id=c.id, project=name, kind=c.kind, target=redact(c.kind, c.target), created_at=c.created_at
            )
            for c, name in rows
        ]
    )


def redact(kind: str, target: str) -> str:
    """A webhook URL is a secret (anyone holding it can post): show its host and last characters."""
    if kind != "webhook":
        return target
    parts = urlsplit(target)
    return f"{parts.scheme}://{parts.netloc}/…{target[-4:]}"


def add_channel(session: Session, project: Project, kind: str, target: str) -> AlertChannel:
    """Add a channel (an existing identical one is returned as is)."""
    target = validate_target(kind, target)
    found = session.scalar(
        select(AlertChannel).where(
            AlertChannel.project_id == project.id, AlertChannel.kind == kind, AlertChannel.target == target
        )
    )
    if found is not None:
        return found
    channel = AlertChannel(project_id=project.id, kind=kind, target=target, created_at=time.time())
    session.add(channel)
    session.flush()
    return channel


def add_channel_for(session: Session, principal: Principal, kind: str, target: str, project: str | None):
    require_manager(principal)
    proj = _project_for(session, principal, project)
    try:
        channel = add_channel(session, proj, kind, target)
    except ValueError as exc:
        raise HTTPException(422, str(exc)) from None
    return ChannelOut(
        id=channel.id,
        project=proj.name,
        kind=channel.kind,
        target=channel.target,
        created_at=channel.created_at,
    )


def remove_channel(session: Session, principal: Principal | None, channel_id: int) -> bool:
    q = delete(AlertChannel).where(AlertChannel.id == channel_id)
    if principal is not None:
        require_manager(principal)
        if principal.project_id is not None:
            q = q.where(AlertChannel.project_id == principal.project_id)
    return bool(session.execute(q.returning(AlertChannel.id)).first())
