"""Metric samples of a long run, read as buckets by the database instead of row by row.

A run that logs its loss every 10 steps for a million steps has 100,000 samples per line;
reading them into Python costs more than the whole job page may take. Past ``RAW_LIMIT`` samples
a line is read as at most ``buckets`` groups of equal width, each giving its first and last x and
its lowest and highest value: drawn as the highest value at the bucket's first x and the lowest at
its last, the line sweeps the band the samples cover, spikes included (placed within one bucket,
1/2000 of the run, of where they happened; zooming in on the step charts reads raw steps). The result is then
downsampled like any series (MinMaxLTTB).
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import Integer, cast, func, select
from sqlalchemy.orm import Session

from tpuwatch.server.models import Metric

RAW_LIMIT = 8_000  # samples of one line read as they are; more are read as buckets
BUCKETS = 2_000


def bucket_rows(
    session: Session, where: list, x_col, lo: float, hi: float, keys: list = (), buckets: int = BUCKETS
) -> dict[tuple, list[tuple]]:
    """Per group of ``keys``, the buckets of the rows matching ``where`` over ``x_col``
    (``Metric.step`` or ``Metric.ts``) from ``lo`` to ``hi``, in one pass over the rows:
    ``(bucket, first x, last x, min value, max value, rows, rows with a value)``. Rows without an
    x fall in bucket None; values NULL (NaN or infinite) are counted, not drawn."""
    width = max((hi - lo) / buckets, 1e-9)
    # CAST truncates in SQLite and rounds in PostgreSQL: either way one bucket per integer.
    b = cast((x_col - lo) / width, Integer).label("b")
    q = (
        select(
            *keys,
            b,
            func.min(x_col),
            func.max(x_col),
            func.min(Metric.value),
            func.max(Metric.value),
            func.count(),
            func.count(Metric.value),
        )
        .where(*where)
        .group_by(*keys, b)
        .order_by(*keys, b)
    )
    groups: dict[tuple, list] = {}
    k = len(keys)
    for r in session.connection().execute(q):
        groups.setdefault(tuple(r[:k]), []).append(tuple(r[k:]))
    return groups


def bucketed(
    session: Session, where: list, x_col, lo: float, hi: float, keys: list = (), buckets: int = BUCKETS
) -> dict[tuple, tuple[np.ndarray, np.ndarray]]:
    """(x, y) per group of ``keys``: the band of its buckets (``bucket_rows``), in x order."""
    return {k: band(rows) for k, rows in bucket_rows(session, where, x_col, lo, hi, keys, buckets).items()}


def band(rows: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
    """Buckets as points: each bucket's max at its first x, its min at its last."""
    kept = [r[1:5] for r in rows if r[0] is not None and r[3] is not None]
    if not kept:
        return np.zeros(0), np.zeros(0)
    arr = np.array(kept, dtype=np.float64)
    x = np.empty(2 * len(arr))
    y = np.empty(2 * len(arr))
    x[0::2], x[1::2] = arr[:, 0], arr[:, 1]
    y[0::2], y[1::2] = arr[:, 3], arr[:, 2]
    keep = np.ones(len(x), dtype=bool)
    keep[1::2] = arr[:, 1] > arr[:, 0]  # a one-sample bucket gives one point, not two at one x
    return np.ascontiguousarray(x[keep]), np.ascontiguousarray(y[keep])
