"""The device's own account: libtpu's runtime metrics, one packed row per host per sampling round,
and the server's asks for the cores' state (app/device)."""

from __future__ import annotations

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from tpuwatch.server.db import Base, BigId


class DeviceRound(Base):
    """One sampling round of one host: every runtime metric, packed as the agent sent it
    (``{"c": [chips], "s": {series: value | [value per chip]}}``, agent/sources/device_round.py).
    A row per round, not per value: 64 hosts x 100 values every 5 s would be 75,000 rows a minute."""

    __tablename__ = "device_rounds"
    __table_args__ = (Index("ix_device_rounds_job_ts", "job_id", "ts"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    host_index: Mapped[int] = mapped_column(Integer)
    ts: Mapped[float] = mapped_column(Float)
    data: Mapped[dict] = mapped_column(JSON)


class DeviceAsk(Base):
    """The server asked every host of a job to read its cores' state once (a stall, or the button
    on a stalled job's page). Agents hear it in the answers to their batches while it is fresh."""

    __tablename__ = "device_asks"
    __table_args__ = (Index("ix_device_asks_job_asked", "job_id", "asked_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[int] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"))
    asked_at: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(String(16))  # stall | button
