"""Who is asking, and the one tenant-scope helper every query and lookup goes through.

A principal is a project token's owner (``project_id`` set: it sees that project only) or, for the
open demo on loopback, everyone (``project_id`` None: every project).

>>> from sqlalchemy import select
>>> from tpuwatch.server.models import Job
>>> p = Principal(project_id=3, project="vision", scope="read")
>>> "WHERE jobs.project_id" in str(readable(select(Job), p, Job.project_id))
True
"""

from __future__ import annotations

from dataclasses import dataclass

from tpuwatch.server.errors import Forbidden, NotFound


@dataclass(frozen=True)
class Principal:
    """Who is asking: a project (None for the open demo, which sees every project) and a scope:
    ``full`` reads and writes, ``read`` only reads, ``ingest`` only sends data."""

    project_id: int | None
    project: str
    scope: str = "full"
    token_id: int | None = None

    @property
    def can_read(self) -> bool:
        return self.scope in ("full", "read")

    @property
    def can_write(self) -> bool:
        return self.scope in ("full", "ingest")

    @property
    def can_manage(self) -> bool:
        """May see and change a project's settings, secrets included (alert channels)."""
        return self.scope == "full" and self.project_id is not None

    @property
    def sees_every_project(self) -> bool:
        return self.project_id is None

    @property
    def anonymous(self) -> bool:
        """The visitor of an ``--open`` server: may read every project, change nothing."""
        return self.token_id is None and self.project_id is None


def require_change(principal: Principal) -> None:
    """Forbidden for the anonymous visitor of an ``--open`` server: open means read-only."""
    if principal.anonymous:
        raise Forbidden("an --open server lets anyone read, not change: log in or send a project token")


def readable(statement, principal: Principal, project_column):
    """``statement`` limited to the rows of the principal's project (unchanged for the open demo)."""
    if principal.sees_every_project:
        return statement
    return statement.where(project_column == principal.project_id)


def may_see(principal: Principal, project_id: int) -> bool:
    return principal.sees_every_project or project_id == principal.project_id


def visible(principal: Principal, entity, what: str, ident: int):
    """``entity`` when it exists and belongs to the principal's project; otherwise NotFound (the same
    answer for "missing" and "someone else's", so ids of other projects reveal nothing)."""
    if entity is None or not may_see(principal, entity.project_id):
        raise NotFound(f"no {what} {ident} in this project")
    return entity
