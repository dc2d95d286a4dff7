"""Alert tables: channels, alerts (one open alert per job: the group), their log and deliveries.

Decisions and the messages they cause are written in one transaction (an outbox): a restart or a
change of leader finds exactly what is still to be sent, and nothing that was already sent.
"""

from __future__ import annotations

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from tpuwatch.server.db import Base, BigId


class AlertChannel(Base):
    """Where a project's alerts go: a Slack-compatible webhook URL or an email address."""

    __tablename__ = "alert_channels"
    __table_args__ = (UniqueConstraint("project_id", "kind", "target"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))  # webhook | email
    target: Mapped[str] = mapped_column(String(1000))
    created_at: Mapped[float] = mapped_column(Float)


class Alert(Base):
    """One episode of trouble with one job, from firing to resolved.

    ``open_key`` is the job id while the alert is open and NULL once resolved: its unique
    constraint makes "one open alert per job" hold even if two evaluators raced."""

    __tablename__ = "alerts"
    __table_args__ = (Index("ix_alerts_project_started", "project_id", "started_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), index=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    open_key: Mapped[int | None] = mapped_column(Integer, nullable=True, unique=True)
    condition: Mapped[str] = mapped_column(String(32))  # stalled | lost | failed | preempted | unhealthy
    state: Mapped[str] = mapped_column(String(16), default="firing")  # firing | resolved
    summary: Mapped[str] = mapped_column(Text, default="")
    details: Mapped[dict] = mapped_column(JSON, default=dict)
    started_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)
    resolved_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    acked_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    acked_by: Mapped[str | None] = mapped_column(String(100), nullable=True)
    silenced_until: Mapped[float | None] = mapped_column(Float, nullable=True)
    # Bumped by every decision that sends something: the conditional UPDATE on it is the claim.
    version: Mapped[int] = mapped_column(Integer, default=0)
    notified_at: Mapped[float | None] = mapped_column(Float, nullable=True)  # last firing or repeat
    notifications: Mapped[int] = mapped_column(Integer, default=0)


class AlertLog(Base):
    """The history of an alert: fired, changed, repeat, acked, silenced, resolved."""

    __tablename__ = "alert_log"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    alert_id: Mapped[int] = mapped_column(ForeignKey("alerts.id", ondelete="CASCADE"), index=True)
    ts: Mapped[float] = mapped_column(Float)
    action: Mapped[str] = mapped_column(String(16))
    detail: Mapped[str] = mapped_column(Text, default="")


class AlertDelivery(Base):
    """One message to one target. ``pending`` → claimed (``sending``) → ``sent`` or ``failed``."""

    __tablename__ = "alert_deliveries"
    __table_args__ = (Index("ix_alert_deliveries_status_next", "status", "next_attempt_at"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    alert_id: Mapped[int] = mapped_column(ForeignKey("alerts.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # firing | repeat | resolved
    channel: Mapped[str] = mapped_column(String(16))  # webhook | email
    target: Mapped[str] = mapped_column(String(1000))
    subject: Mapped[str] = mapped_column(String(300), default="")
    body: Mapped[dict] = mapped_column(JSON, default=dict)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[float] = mapped_column(Float)
    next_attempt_at: Mapped[float] = mapped_column(Float)
    claimed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    claimed_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    sent_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
