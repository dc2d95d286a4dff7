"""Sending what the evaluator decided: webhooks (Slack-compatible JSON) and email over SMTP.

Every message is a row in ``alert_deliveries``. A sender first claims the row with a conditional
UPDATE (only one claimer can win it), sends with a timeout, then marks it sent or schedules a
retry with jittered exponential backoff. A claim left behind by a crashed sender expires after
``LEASE_S`` and the row is tried again: delivery is at-least-once, and with a live sender, once.
"""

from __future__ import annotations

import json
import logging
import random
import smtplib
import time
from email.message import EmailMessage
from urllib.parse import urljoin, urlsplit

from sqlalchemy import and_, or_, update
from sqlalchemy.orm import Session, sessionmaker

from tpuwatch.server.alerts.egress import EgressPolicy, EgressRefused, post
from tpuwatch.server.alerts.fairness import fair_order
from tpuwatch.server.db import transaction
from tpuwatch.server.models import AlertDelivery
from tpuwatch.server.settings import Settings

# Our own generator: tests and other code seed the global one.
_jitter = random.Random()

log = logging.getLogger("tpuwatch.alerts")

LEASE_S = 120.0
MAX_ATTEMPTS = 8
BATCH = 50
MAX_REDIRECTS = 3


class DeliveryError(Exception):
    """A send failed; ``retry`` says whether trying again can help."""

    def __init__(self, message: str, retry: bool = True) -> None:
        super().__init__(message)
        self.retry = retry


def send_webhook(url: str, body: dict, timeout: float, policy: EgressPolicy | None = None) -> None:
    """POST ``body`` as JSON to an address the egress policy allows. 2xx is success; 4xx other than
    408/429 will not improve with retries. A 307/308 redirect is followed (the method and body
    stay) only to where the policy allows too; other redirects are reported, not followed."""
    policy = policy or EgressPolicy()
    data = json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "User-Agent": "tpuwatch"}
    for _ in range(MAX_REDIRECTS + 1):
        try:
            status, location = post(policy.vet(url), data, headers, timeout)
        except EgressRefused as exc:
            raise DeliveryError(f"webhook {exc}", retry=False) from None
        except OSError as exc:
            raise DeliveryError(f"webhook unreachable: {exc}") from None
        if 200 <= status < 300:
            return
        if status in (307, 308) and location:
            url = urljoin(url, location)
            continue
        if 300 <= status < 400:
            where = urlsplit(urljoin(url, location or "")).hostname or "?"
            raise DeliveryError(
                f"webhook answered HTTP {status} (a redirect to {where}): not followed, a POST would turn "
                "into a GET; configure the final URL",
                retry=False,
            )
        raise DeliveryError(f"webhook answered HTTP {status}", retry=status >= 500 or status in (408, 429))
    raise DeliveryError(f"webhook redirected more than {MAX_REDIRECTS} times", retry=False)


def send_email(settings: Settings, to: str, subject: str, text: str, timeout: float) -> None:
    """Send a plain-text email through ``settings.smtp_host`` (STARTTLS and login when configured)."""
    if not settings.smtp_host:
        raise DeliveryError("no SMTP server configured (TPUWATCH_SMTP_HOST)", retry=False)
    msg = EmailMessage()
    msg["From"] = settings.smtp_from
    msg["To"] = to
    msg["Subject"] = subject
    msg.set_content(text)
    try:
        with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=timeout) as smtp:
            if settings.smtp_starttls:
                smtp.starttls()
            if settings.smtp_user:
                smtp.login(settings.smtp_user, settings.smtp_password)
            smtp.send_message(msg)
    except smtplib.SMTPRecipientsRefused as exc:
        raise DeliveryError(f"recipient refused: {exc.recipients}", retry=False) from None
    except (smtplib.SMTPException, OSError) as exc:
        raise DeliveryError(f"SMTP: {type(exc).__name__}: {exc}") from None


def backoff(attempts: int) -> float:
    """Seconds before attempt ``attempts + 1``: 2, 4, 8, ... capped at 10 min, with jitter."""
    return min(600.0, 2.0**attempts) * _jitter.uniform(0.8, 1.2)


def _due(now: float):
    return or_(
        and_(AlertDelivery.status == "pending", AlertDelivery.next_attempt_at <= now),
        and_(AlertDelivery.status == "sending", AlertDelivery.claimed_at < now - LEASE_S),
    )


def claim(session: Session, delivery_id: int, owner: str, now: float) -> AlertDelivery | None:
    """Take one due delivery for ``owner``; None when someone else has it or it is not due."""
    won = session.execute(
        update(AlertDelivery)
        .where(AlertDelivery.id == delivery_id, _due(now))
        .values(status="sending", claimed_by=owner, claimed_at=now, attempts=AlertDelivery.attempts + 1)
        .returning(AlertDelivery.id)
    ).first()
    if won is None:
        return None
    return session.get(AlertDelivery, delivery_id, populate_existing=True)


def deliver_due(
    factory: sessionmaker[Session], settings: Settings, owner: str, budget_s: float = 10.0
) -> int:
    """Send the deliveries that are due; returns how many were sent. Stops starting new sends once
    ``budget_s`` is spent, so a slow receiver delays the next evaluation by little."""
    start = time.monotonic()
    policy = EgressPolicy.from_settings(settings)
    with transaction(factory) as s:
        now = time.time()
        ids = s.scalars(fair_order(_due(now), BATCH)).all()  # round-robin across projects
    sent = 0
    for delivery_id in ids:
        if time.monotonic() - start > budget_s:
            break
        with transaction(factory) as s:
            row = claim(s, delivery_id, owner, time.time())
            if row is None:
                continue
            job = (row.channel, row.target, row.subject, row.body, row.attempts)
        channel, target, subject, body, attempts = job
        error: DeliveryError | None = None
        try:
            if channel == "webhook":
                send_webhook(target, body, settings.alert_delivery_timeout, policy)
            else:
                send_email(settings, target, subject, body.get("text", ""), settings.alert_delivery_timeout)
        except DeliveryError as exc:
            error = exc
        except Exception as exc:  # a bug in one send must not stop the others
            error = DeliveryError(f"{type(exc).__name__}: {exc}")
        with transaction(factory) as s:
            now = time.time()
            mine = (AlertDelivery.id == delivery_id) & (AlertDelivery.claimed_by == owner)
            if error is None:
                values = dict(status="sent", sent_at=now, last_error=None)
                sent += 1
            elif error.retry and attempts < MAX_ATTEMPTS:
                values = dict(
                    status="pending", next_attempt_at=now + backoff(attempts), last_error=str(error)
                )
            else:
                values = dict(status="failed", last_error=str(error))
            s.execute(update(AlertDelivery).where(mine).values(**values))
        if error is not None:
            log.warning("alert delivery %s to %s %s failed: %s", delivery_id, channel, target, error)
    return sent
