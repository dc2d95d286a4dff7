"""Alerts for people and tools: list, detail, acknowledge, silence, and the channels they go to."""

from __future__ import annotations

import re
import time
from urllib.parse import urlsplit

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from tpuwatch.server.alerts.egress import EgressPolicy, EgressRefused
from tpuwatch.server.alerts.output import alert_out, channel_out, delivery_out
from tpuwatch.server.alerts.schemas import (
    MAX_SILENCE_S,
    AlertDetail,
    AlertList,
    AlertLogOut,
    AlertOut,
    ChannelList,
)
from tpuwatch.server.auth.principal import Principal, readable, require_change, visible
from tpuwatch.server.errors import Conflict, Forbidden, Invalid
from tpuwatch.server.models import Alert, AlertChannel, AlertDelivery, AlertLog, Job, Project
from tpuwatch.server.tokens.service import get_or_create_project

STATES = ("open", "acknowledged", "silenced", "resolved")
EMAIL = re.compile(r"^[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+$")


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
    q = readable(q, principal, Alert.project_id)
    if state == "resolved":
        q = q.where(Alert.state == "resolved")
    elif state is not None:
        q = q.where(Alert.state == "firing")
    now = time.time()
    rows = [
        alert_out(a, job, proj, now)
        for a, job, proj in session.execute(q.limit(limit * 4 if state else limit))
    ]
    if state:
        rows = [r for r in rows if r["state"] == state][:limit]
    return AlertList(alerts=[AlertOut(**r) for r in rows])


def visible_alert(session: Session, principal: Principal, alert_id: int) -> Alert:
    return visible(principal, session.get(Alert, alert_id), "alert", alert_id)


def alert_detail(session: Session, alert: Alert, principal: Principal | None) -> AlertDetail:
    """One alert with its history and deliveries; webhook targets are redacted except for the
    server's own CLI (``principal`` None)."""
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
        **alert_out(alert, job, project, time.time()),
        history=[AlertLogOut.model_validate(h, from_attributes=True) for h in history],
        deliveries=[delivery_out(d, principal) for d in deliveries],
    )


def _who(principal: Principal) -> str:
    return (
        principal.project
        if principal.token_id is None
        else f"{principal.project} (token {principal.token_id})"
    )


def acknowledge(session: Session, principal: Principal, alert: Alert) -> Alert:
    """Someone is on it: no more repeats (a change of condition or the resolve still notifies)."""
    require_change(principal)
    if alert.state == "resolved":
        raise Conflict("this alert is already resolved")
    now = time.time()
    alert.acked_at, alert.acked_by, alert.updated_at = now, _who(principal)[:100], now
    session.add(AlertLog(alert_id=alert.id, ts=now, action="acked", detail=f"by {_who(principal)}"))
    session.flush()
    return alert


def max_silence(principal: Principal, viewer_max: int) -> int:
    """The longest silence ``principal`` may set: a viewer (read-only) token silences for at most
    ``viewer_max`` (an on-call person quieting a page); a project token, up to 30 days."""
    return MAX_SILENCE_S if principal.sees_every_project or principal.can_manage else viewer_max


def silence(
    session: Session, principal: Principal, alert: Alert, seconds: int, viewer_max: int = MAX_SILENCE_S
) -> Alert:
    """No notifications for ``seconds``; the alert stays on the page. ``seconds=0`` lifts it."""
    require_change(principal)
    if alert.state == "resolved":
        raise Conflict("this alert is already resolved")
    allowed = max_silence(principal, viewer_max)
    if seconds > allowed:
        raise Forbidden(
            f"a read-only token may silence for at most {_span(allowed)}; "
            "longer silences need a project token"
        )
    now = time.time()
    alert.silenced_until = now + seconds if seconds > 0 else None
    alert.updated_at = now
    detail = f"for {seconds} s by {_who(principal)}" if seconds > 0 else f"lifted by {_who(principal)}"
    session.add(
        AlertLog(alert_id=alert.id, ts=now, action="silenced" if seconds > 0 else "unsilenced", detail=detail)
    )
    session.flush()
    return alert


def _span(seconds: int) -> str:
    return f"{seconds // 3600} h" if seconds % 3600 == 0 else f"{seconds} s"


# -- channels ---------------------------------------------------------------------------------


def validate_target(kind: str, target: str) -> str:
    """The target, stripped, or ValueError saying what is wrong with it."""
    target = target.strip()
    if kind == "webhook":
        parts = urlsplit(target)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("a webhook must be an http:// or https:// URL")
        if "@" in parts.netloc:
            raise ValueError(
                "a webhook URL may not hold a user name or password (anyone who may read the channel "
                "list would see them): put the secret in the URL's path, as Slack's hooks do"
            )
        if (parts.hostname or "").endswith("."):
            raise ValueError("write the webhook's host name without a trailing dot")
    elif kind == "email":
        if not EMAIL.match(target):
            raise ValueError("not an email address")
    else:
        raise ValueError("kind must be webhook or email")
    return target


def _project_for(session: Session, principal: Principal, project: str | None) -> Project:
    if not principal.sees_every_project:
        if project not in (None, "", principal.project):
            raise Forbidden("a token manages its own project's channels only")
        return session.get(Project, principal.project_id)
    if not project:
        raise Invalid("say which project the channel is for")
    return get_or_create_project(session, project)


def require_manager(principal: Principal) -> None:
    # Read-only viewers may acknowledge and silence (on-call people), not reroute alerts.
    require_change(principal)
    if not principal.sees_every_project and not principal.can_manage:
        raise Forbidden("managing channels needs a full project token")


def list_channels(session: Session, principal: Principal | None, project: str | None = None) -> ChannelList:
    q = select(AlertChannel, Project.name).join(Project, Project.id == AlertChannel.project_id)
    if principal is not None:
        q = readable(q, principal, AlertChannel.project_id)
    if project:
        q = q.where(Project.name == project)
    rows = session.execute(q.order_by(Project.name, AlertChannel.id)).all()
    return ChannelList(channels=[channel_out(c, name, principal) for c, name in rows])


def add_channel(
    session: Session, project: Project, kind: str, target: str, policy: EgressPolicy | None = None
) -> AlertChannel:
    """Add a channel (an existing identical one is returned as is). A webhook the egress policy
    refuses (an internal address) is a ValueError saying why; every send checks again."""
    target = validate_target(kind, target)
    if kind == "webhook":
        try:
            (policy or EgressPolicy()).check_new(target)
        except EgressRefused as exc:
            raise ValueError(f"webhook {exc}") from None
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


def add_channel_for(
    session: Session,
    principal: Principal,
    kind: str,
    target: str,
    project: str | None,
    policy: EgressPolicy | None = None,
):
    require_manager(principal)
    proj = _project_for(session, principal, project)
    try:
        channel = add_channel(session, proj, kind, target, policy)
    except ValueError as exc:
        raise Invalid(str(exc)) from None
    return channel_out(channel, proj.name, principal, echo=True)


def remove_channel(session: Session, principal: Principal | None, channel_id: int) -> bool:
    q = delete(AlertChannel).where(AlertChannel.id == channel_id)
    if principal is not None:
        require_manager(principal)
        q = readable(q, principal, AlertChannel.project_id)
    return bool(session.execute(q.returning(AlertChannel.id)).first())
