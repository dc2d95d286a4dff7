"""Chart downsampling with a min/max-preserving method (tsdownsample's MinMaxLTTB)."""

from __future__ import annotations

import numpy as np
from tsdownsample import MinMaxLTTBDownsampler

_DOWNSAMPLER = MinMaxLTTBDownsampler()


def downsample(x: np.ndarray, y: np.ndarray, n_out: int) -> np.ndarray:
    """Indices of at most ``n_out`` points of (x, y) that keep its peaks and dips."""
    n = len(x)
    if n <= n_out:
        return np.arange(n)
    n_out = max(4, n_out - n_out % 2)  # MinMaxLTTB wants an even count of at least 4
    return _DOWNSAMPLER.downsample(x, y, n_out=n_out)
