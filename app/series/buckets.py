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


def line_stats(session: Session, where: list, keys: list) -> list[tuple]:
    """``(*keys, count, count of steps, count of values, min ts, max ts)`` per group of ``keys``
    (columns of ``metrics``) among the rows matching ``where``."""
    q = (
        select(
            *keys,
            func.count(),
            func.count(Metric.step),
            func.count(Metric.value),
            func.min(Metric.ts),
            func.max(Metric.ts),
        )
        .where(*where)
        .group_by(*keys)
    )
    return [tuple(r) for r in session.connection().execute(q)]


def bucketed(
    session: Session, where: list, x_col, lo: float, hi: float, keys: list = (), buckets: int = BUCKETS
) -> dict[tuple, tuple[np.ndarray, np.ndarray]]:
    """(x, y) per group of ``keys`` of the band of the rows matching ``where`` over ``x_col``
    (``Metric.step`` or ``Metric.ts``) from ``lo`` to ``hi``: up to two points per bucket, in x
    order, in one pass over the rows. Rows whose value is NULL (NaN or infinite) are left out."""
    width = max((hi - lo) / buckets, 1e-9)
    # CAST truncates in SQLite and rounds in PostgreSQL: either way one bucket per integer.
    b = cast((x_col - lo) / width, Integer).label("b")
    q = (
        select(*keys, b, func.min(x_col), func.max(x_col), func.min(Metric.value), func.max(Metric.value))
        .where(*where, Metric.value.is_not(None))
        .group_by(*keys, b)
        .order_by(*keys, b)
    )
    groups: dict[tuple, list] = {}
    k = len(keys)
    for r in session.connection().execute(q):
        groups.setdefault(tuple(r[:k]), []).append(tuple(r[k + 1 :]))
    return {key: _band(np.array(rows, dtype=np.float64)) for key, rows in groups.items()}


def _band(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows (first x, last x, min y, max y) as points: the max at the first x, the min at the last."""
    x = np.empty(2 * len(arr))
    y = np.empty(2 * len(arr))
    x[0::2], x[1::2] = arr[:, 0], arr[:, 1]
    y[0::2], y[1::2] = arr[:, 3], arr[:, 2]
    keep = np.ones(len(x), dtype=bool)
    keep[1::2] = arr[:, 1] > arr[:, 0]  # a one-sample bucket gives one point, not two at one x
    return np.ascontiguousarray(x[keep]), np.ascontiguousarray(y[keep])
