"""A project's goodput and MFU floors: read and set (the alert evaluator reads them)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from tpuwatch.server.auth.principal import Principal
from tpuwatch.server.errors import Invalid, NotFound
from tpuwatch.server.goodput.schemas import Floors
from tpuwatch.server.models import Project


def _project(session: Session, principal: Principal) -> Project:
    if principal.project_id is None:
        raise Invalid("floors belong to a project: use a project token")
    project = session.get(Project, principal.project_id)
    if project is None:
        raise NotFound("no such project")
    return project


def get(session: Session, principal: Principal) -> Floors:
    p = _project(session, principal)
    return Floors(goodput=p.goodput_floor, mfu=p.mfu_floor)


def put(session: Session, principal: Principal, floors: Floors) -> Floors:
    p = _project(session, principal)
    p.goodput_floor, p.mfu_floor = floors.goodput, floors.mfu
    session.flush()
    return floors
