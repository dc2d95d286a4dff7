"""Jobs, their hosts, their events, and the ingest log that makes redelivery harmless. Times are UNIX
seconds (float), as on the wire."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tpuwatch.server.db import Base, BigId
from tpuwatch.server.models.projects import Project


class Job(Base):
    """One run of a training job: every host of a slice that shares ``run_id`` is the same job."""

    __tablename__ = "jobs"
    __table_args__ = (
        UniqueConstraint("project_id", "run_id"),
        Index("ix_jobs_project_started", "project_id", "started_at"),
        Index("ix_jobs_project_group_started", "project_id", "group_key", "started_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    run_id: Mapped[str] = mapped_column(String(128))
    name: Mapped[str] = mapped_column(String(200), index=True)
    # The training run this job is an attempt of (the agent's --group, else the job name).
    group_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
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
    # When its loss first went NaN or infinite: the job is "diverged" whatever its exit code.
    diverged_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    exit_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    exit_signal: Mapped[str | None] = mapped_column(String(32), nullable=True)
    dropped_events: Mapped[int] = mapped_column(BigInteger, default=0)
    # Batches delivered again under a stored key with different content (the first copy is kept).
    conflicting_batches: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    attrs: Mapped[dict] = mapped_column(JSON, default=dict)
    # The last goodput bar computed for it (shares per part), what the overview draws.
    goodput: Mapped[dict | None] = mapped_column(JSON, nullable=True)

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


class IngestKey(Base):
    """Which batches are stored, 64 sequence numbers of a stream to a row: the keys that make
    redelivery harmless (app/ingest/keys.py). A pod sends a batch per host per second; a row per
    batch would outweigh the steps it guards.

    ``stream_key`` is 8 bytes of BLAKE2b of the agent's stream name (unique within a job: two of a
    job's few thousand streams colliding is a 1-in-10^13 chance); bit ``seq % 64`` of ``seen`` says
    batch ``seq`` is stored and ``digests`` holds the first bytes of each one's SHA-256 at its slot.
    """

    __tablename__ = "ingest_keys"
    __table_args__ = (
        # Retention walks rows by age; BRIN: a few pages for rows that arrive in time order.
        Index("ix_ingest_keys_first_at", "first_at", postgresql_using="brin"),
    )

    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    stream_key: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    block: Mapped[int] = mapped_column(BigInteger, primary_key=True)  # seq // 64
    seen: Mapped[int] = mapped_column(BigInteger)  # bit seq % 64 (bit 63 is the sign bit)
    first_at: Mapped[float] = mapped_column(Float)  # when the row's first batch came
    last_at: Mapped[float] = mapped_column(Float)  # ...and its latest
    digests: Mapped[bytes] = mapped_column(LargeBinary)


class IngestPart(Base):
    """The key of a part of a split batch (the agent halves a batch the server refused as too
    large; ``part`` is the path of halvings, ``"01"``): rare, so a row each."""

    __tablename__ = "ingest_parts"
    __table_args__ = (Index("ix_ingest_parts_received_at", "received_at"),)

    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    stream_key: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    part: Mapped[str] = mapped_column(String(32), primary_key=True)
    received_at: Mapped[float] = mapped_column(Float)
    digest: Mapped[bytes] = mapped_column(LargeBinary)


class IngestDrop(Base):
    """What each agent stream of a job says it had to drop (its running total). A job's dropped
    events are the sum over its streams: the sidecar, the training process and the spool's loss
    notices each count their own."""

    __tablename__ = "ingest_drops"

    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True)
    stream: Mapped[str] = mapped_column(String(64), primary_key=True)
    dropped: Mapped[int] = mapped_column(BigInteger)
