"""How alerts, deliveries and channels leave the server: one mapper per entity, and the redaction.

A webhook URL is a secret (anyone holding it can post to the channel). Once stored, only the
server's own CLI (principal ``None``, someone with the database) sees it whole; every token and
page session sees its host and last characters, in the channel list, in each delivery's target
and in a delivery's error text alike. The answer to adding a channel echoes what was sent.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from tpuwatch.server.alerts.schemas import ChannelOut, DeliveryOut
from tpuwatch.server.auth.principal import Principal
from tpuwatch.server.models import Alert, AlertChannel, AlertDelivery


def alert_state(alert: Alert, now: float) -> str:
    """open | acknowledged | silenced | resolved, as the page groups them."""
    if alert.state == "resolved":
        return "resolved"
    if alert.silenced_until is not None and alert.silenced_until > now:
        return "silenced"
    if alert.acked_at is not None:
        return "acknowledged"
    return "open"


def shows_secrets(principal: Principal | None) -> bool:
    return principal is None


def redact(kind: str, target: str) -> str:
    """A webhook URL is a secret (anyone holding it can post): show its host and last characters."""
    if kind != "webhook":
        return target
    parts = urlsplit(target)
    where = parts.netloc.rpartition("@")[2]  # never a user:password stored before they were refused
    return f"{parts.scheme}://{where}/…{target[-4:]}"


def alert_out(alert: Alert, job: str, project: str, now: float) -> dict:
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


def delivery_out(delivery: AlertDelivery, principal: Principal | None) -> DeliveryOut:
    out = DeliveryOut.model_validate(delivery, from_attributes=True)
    if shows_secrets(principal):
        return out
    hidden = redact(delivery.channel, delivery.target)
    error = delivery.last_error.replace(delivery.target, hidden) if delivery.last_error else None
    return out.model_copy(update={"target": hidden, "last_error": error})


def channel_out(
    channel: AlertChannel, project: str, principal: Principal | None, echo: bool = False
) -> ChannelOut:
    """``echo``: the answer to the request that added it, which already holds the target."""
    whole = echo or shows_secrets(principal)
    target = channel.target if whole else redact(channel.kind, channel.target)
    return ChannelOut(
        id=channel.id, project=project, kind=channel.kind, target=target, created_at=channel.created_at
    )
