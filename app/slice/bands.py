"""Device series of a slice reduced to bands: p50 and max over chips on a common time grid.

A post-mortem of a 1,024-host job cannot draw 4,096 HBM lines (megabytes of HTML that no one can
read); the bands show what those lines would: where the typical chip was, and the fullest one.

>>> from tpuwatch.server.series.schemas import Series
>>> lines = [Series(host=h, metric="chip 0", x=[0.0, 10.0], y=[50.0 + h, 60.0 + h]) for h in range(3)]
>>> [(b.metric, b.y) for b in chip_bands(lines, bins=2)]
[('p50 over chips', [51.0, 61.0]), ('max over chips', [52.0, 62.0])]
"""

from __future__ import annotations

import numpy as np

from tpuwatch.server.series.schemas import Series

BANDS_ABOVE = 64  # more device lines than this are drawn as bands


def chip_bands(series: list[Series], bins: int = 200) -> list[Series]:
    """p50 and max over every chip's samples in each of ``bins`` equal time bins (empty bins left out).
    ``host`` is -1 in the bands: no single host drew them."""
    xs = [np.asarray(s.x, dtype=np.float64) for s in series if s.x]
    ys = [np.asarray([np.nan if v is None else v for v in s.y], dtype=np.float64) for s in series if s.x]
    if not xs:
        return []
    x, y = np.concatenate(xs), np.concatenate(ys)
    keep = ~np.isnan(y)
    x, y = x[keep], y[keep]
    if not len(x):
        return []
    lo, hi = float(x.min()), float(x.max())
    width = (hi - lo) / bins or 1.0
    slot = np.minimum(((x - lo) / width).astype(np.int64), bins - 1)
    order = np.lexsort((y, slot))
    slot, y = slot[order], y[order]
    starts = np.flatnonzero(np.r_[True, slot[1:] != slot[:-1]])
    ends = np.r_[starts[1:], len(slot)]
    centres = (lo + (slot[starts] + 0.5) * width).tolist() if hi > lo else [lo] * len(starts)
    p50 = [float(np.median(y[a:b])) for a, b in zip(starts, ends, strict=True)]
    top = [float(y[b - 1]) for b in ends]
    return [
        Series(host=-1, metric="p50 over chips", x=centres, y=p50),
        Series(host=-1, metric="max over chips", x=centres, y=top),
    ]
