"""Projects and their API tokens."""

from __future__ import annotations

from sqlalchemy import (
    Float,
    ForeignKey,
    String,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from tpuwatch.server.db import Base


class Project(Base):
    __tablename__ = "projects"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    created_at: Mapped[float] = mapped_column(Float)
    # Alert when a running job's goodput or MFU stays under these fractions (None: never).
    goodput_floor: Mapped[float | None] = mapped_column(Float, nullable=True)
    mfu_floor: Mapped[float | None] = mapped_column(Float, nullable=True)


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


class WebSession(Base):
    """A logged-in page session. The browser's cookie holds a random session id; only its SHA-256
    is stored, with the token it was made from. Logging out deletes the row, revoking the token
    deletes every row of it; a row idle too long or too old no longer reads."""

    __tablename__ = "web_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)  # SHA-256 of the cookie's id
    token_id: Mapped[int] = mapped_column(ForeignKey("api_tokens.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[float] = mapped_column(Float)
    last_seen_at: Mapped[float] = mapped_column(Float)
