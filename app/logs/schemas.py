"""What the live-log API returns: a job's output lines, oldest first."""

from __future__ import annotations

from pydantic import BaseModel


class LogLineOut(BaseModel):
    id: int  # the order lines arrived in: ask for ``after`` the last one to tail
    host: int
    line: int  # in this host's output, 1-based
    ts: float
    stream: str
    level: str
    text: str


class LogPage(BaseModel):
    job_id: int
    hosts: list[int]
    lines: list[LogLineOut]
    last_id: int | None = None  # pass as ``after`` to get only newer lines
    truncated: bool = False  # more lines matched than ``limit``: the newest are shown
    searched_lines: int | None = None  # a text search read only this many newest lines of the job
