"""The alerts API on the wire."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

MAX_SILENCE_S = 30 * 86400


class AlertLogOut(BaseModel):
    ts: float
    action: str
    detail: str


class DeliveryOut(BaseModel):
    id: int
    kind: str
    channel: str
    target: str
    status: str
    attempts: int
    created_at: float
    sent_at: float | None
    last_error: str | None


class AlertOut(BaseModel):
    id: int
    job_id: int
    job: str
    project: str
    condition: str
    state: Literal["open", "acknowledged", "silenced", "resolved"]
    summary: str
    details: dict
    started_at: float
    updated_at: float
    resolved_at: float | None
    acked_at: float | None
    acked_by: str | None
    silenced_until: float | None
    notifications: int
    url: str
    job_url: str


class AlertDetail(AlertOut):
    history: list[AlertLogOut]
    deliveries: list[DeliveryOut]


class AlertList(BaseModel):
    alerts: list[AlertOut]


class SilenceIn(BaseModel):
    seconds: Annotated[int, Field(ge=60, le=MAX_SILENCE_S, description="how long to stay quiet")] = 3600


class ChannelIn(BaseModel):
    kind: Literal["webhook", "email"]
    target: Annotated[str, Field(min_length=3, max_length=1000)]
    project: Annotated[
        str | None, Field(max_length=100, description="only with an open (all-projects) view")
    ] = None


class ChannelOut(BaseModel):
    id: int
    project: str
    kind: str
    target: str
    created_at: float


class ChannelList(BaseModel):
    channels: list[ChannelOut]
