"""The triage API's wire format."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

MAX_TRIAGE_CHARS = 2_000_000


class TriageRequest(BaseModel):
    text: str = Field(max_length=MAX_TRIAGE_CHARS, description="error output or a whole log")
    context: dict[str, Any] = Field(
        default_factory=dict,
        description="what is known about the job: global_batch_size, replicas, hbm_limit",
    )


class CardOut(BaseModel):
    category: str
    subtype: str | None = None
    title: str
    confidence: float
    evidence: str
    line: int | None = None
    explanation: str
    fixes: list[str]
    facts: dict[str, Any] = {}


class TriageResult(BaseModel):
    cards: list[CardOut] = Field(description="primary diagnosis first; empty means unknown")
    category: str = Field(description="the primary card's category, or 'unknown'")


class UnknownGroup(BaseModel):
    key: str
    template: str
    count: int
    hosts: int
    jobs: list[dict[str, Any]]
    last_seen: float
    example: str


class UnknownGroups(BaseModel):
    groups: list[UnknownGroup]
