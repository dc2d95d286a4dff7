"""Numeric query parameters, bounded: every number a client may pass in a query string has a range,
and NaN and infinities are refused (422), so no route builds a list, a range or a SQL bound from
``end=2**62`` or ``start=nan``. Routes then clamp step ranges to what the job holds.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Query

from tpuwatch import wire

MAX_ID = 2**63 - 1  # what a BIGINT column holds

# A step number (ingest refuses larger ones), as an integer or as a chart's zoomed axis.
StepQ = Annotated[int | None, Query(ge=0, le=wire.MAX_STEP)]
StepF = Annotated[float | None, Query(ge=0, le=wire.MAX_STEP, allow_inf_nan=False)]
# A UNIX time: what ingest stores lies between 2000 and 2100.
TimeQ = Annotated[float | None, Query(ge=0, le=wire.MAX_TIME, allow_inf_nan=False)]
HostQ = Annotated[int | None, Query(ge=0, le=65535)]  # a host's index, as RunInfo.host
ChipQ = Annotated[int | None, Query(ge=0, le=2**31 - 1)]
LineQ = Annotated[int | None, Query(ge=0, le=MAX_ID)]  # a log line's number
OffsetQ = Annotated[int, Query(ge=0, le=10**9)]


def clamp_steps(start: float | None, end: float | None, last_step: int | None) -> tuple[float, float]:
    """``start``..``end`` within what the job holds (0 .. its last step).

    >>> clamp_steps(None, 2**40, 500), clamp_steps(600, None, 500), clamp_steps(None, None, None)
    ((0, 500), (500, 500), (0, 0))
    """
    last = int(last_step or 0)
    lo = 0 if start is None else min(max(0, start), last)
    hi = last if end is None else min(max(0, end), last)
    return lo, hi
