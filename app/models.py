"""The ORM: one module for the core tables; times are UNIX seconds (float), as on the wire.

Domains with tables of their own keep them in ``app/<domain>/models.py`` and are imported at the
bottom of this module, so that ``Base.metadata`` (and Alembic's autogenerate) sees every table.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# SQLite only makes INTEGER PRIMARY KEY an alias of the rowid (fast appends); PostgreSQL wants BIGINT.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Project(Base):
    __tablename__ = "projects"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    created_at: Mapped[float] = mapped_column(Float)


class ApiToken(Base):
    """A bearer token. Only its SHA-256 is stored; ``prefix`` lets a person tell tokens apart."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))
    scope: Mapped[str] = mapped_column(String(16), default="full")  # full | read | ingest
    name: Mapped[str] = mapped_column(String(100), default="")
    created_at: Mapped[float] = mapped_column(Float)
    revoked_at: Mapped[float | None] = mapped_column(Float, nullable=True)

    project: Mapped[Project] = relationship(lazy="raise")


class Job(Base):
    """One run of a training job: every host of a slice that shares ``run_id`` is the same job."""

    __tablename__ = "jobs"
    __table_args__ = (
        UniqueConstraint("project_id", "run_id"),
        Index("ix_jobs_project_started", "project_id", "started_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    run_id: Mapped[str] = mapped_column(String(128))
    name: Mapped[str] = mapped_column(String(200), index=True)
    # running | failed | succeeded; stalled and lost are judged from the times below.
    status: Mapped[str] = mapped_column(String(16), default="running")
    started_at: Mapped[float] = mapped_column(Float)
    ended_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    last_seen_at: Mapped[float] = mapped_column(Float)
    steps: Mapped[int] = mapped_column(BigInteger, default=0)
    last_step: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    last_step_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    first_step_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    step_time_p50: Mapped[float | None] = mapped_column(Float, nullable=True)
    input_wait_p50: Mapped[float | None] = mapped_column(Float, nullable=True)
    errors: Mapped[int] = mapped_column(Integer, default=0)
    exit_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    exit_signal: Mapped[str | None] = mapped_column(String(32), nullable=True)
    dropped_events: Mapped[int] = mapped_column(BigInteger, default=0)
    attrs: Mapped[dict] = mapped_column(JSON, default=dict)

    project: Mapped[Project] = relationship(lazy="raise")
    hosts: Mapped[list[JobHost]] = relationship(
        lazy="raise", order_by="JobHost.host_index", cascade="all, delete-orphan"
    )


class JobHost(Base):
    """One worker (TPU VM) of a job."""

    __tablename__ = "job_hosts"
    __table_args__ = (UniqueConstraint("job_id", "host_index"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    host_index: Mapped[int] = mapped_column(Integer)
    hostname: Mapped[str] = mapped_column(String(255), default="")
    started_at: Mapped[float] = mapped_column(Float)
    last_seen_at: Mapped[float] = mapped_column(Float)
    ended_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    exited: Mapped[bool] = mapped_column(Boolean, default=False)
    exit_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    exit_signal: Mapped[str | None] = mapped_column(String(32), nullable=True)
    steps: Mapped[int] = mapped_column(BigInteger, default=0)
    last_step: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    last_step_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    step_time_p50: Mapped[float | None] = mapped_column(Float, nullable=True)
    attrs: Mapped[dict] = mapped_column(JSON, default=dict)


class Step(Base):
    """The large table: one row per training step per host, written in batches."""

    __tablename__ = "steps"
    __table_args__ = (Index("ix_steps_job_host_step", "job_id", "host_index", "step"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    host_index: Mapped[int] = mapped_column(Integer)
    step: Mapped[int] = mapped_column(BigInteger)
    ts: Mapped[float] = mapped_column(Float)
    duration: Mapped[float] = mapped_column(Float)
    input_wait: Mapped[float] = mapped_column(Float)


class Event(Base):
    """Something that happened: start, error (with the traceback), exit, checkpoint, node state."""

    __tablename__ = "events"
    __table_args__ = (Index("ix_events_job_ts", "job_id", "ts"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    host_index: Mapped[int] = mapped_column(Integer)
    ts: Mapped[float] = mapped_column(Float)
    kind: Mapped[str] = mapped_column(String(32))
    message: Mapped[str] = mapped_column(Text, default="")
    data: Mapped[dict | None] = mapped_column(JSON, nullable=True)


class Metric(Base):
    """A sample of a device metric (HBM bytes, duty cycle) for one chip of one host."""

    __tablename__ = "metrics"
    __table_args__ = (Index("ix_metrics_job_name_ts", "job_id", "name", "ts"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    host_index: Mapped[int] = mapped_column(Integer)
    chip: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(100))
    ts: Mapped[float] = mapped_column(Float)
    value: Mapped[float | None] = mapped_column(Float, nullable=True)  # NaN is stored as NULL


class IngestBatch(Base):
    """Which batches are stored: the key that makes redelivery harmless."""

    __tablename__ = "ingest_batches"

    stream: Mapped[str] = mapped_column(String(64), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    part: Mapped[str] = mapped_column(String(32), primary_key=True, default="")
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), index=True)
    received_at: Mapped[float] = mapped_column(Float)
    events: Mapped[int] = mapped_column(Integer)


# Domain tables live beside their domain; importing them here puts them in Base.metadata.
import app.alerts.models  # noqa: E402, F401
import app.jobs.models  # noqa: E402, F401
