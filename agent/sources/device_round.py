"""One sampling round of every runtime metric libtpu serves, packed into one ``device`` event.

Each ``GetRuntimeMetric`` answer is a list of ``Metric`` messages (tpu-info's proto): a gauge,
counter, distribution or summary, each with an attribute saying whose it is. Per-chip metrics
carry the chip as ``int_attr`` (HBM, duty cycle) or as ``device_ordinal`` in a key-value list (HLO
queue size and execution timing); the megascale latencies carry a ``buffer-size`` instead and are
host-wide: their buckets are summed, as tpu-info does. A distribution becomes its p50, p90, p99,
p99.9 and mean over the last round (the counts are cumulative: the difference between two rounds
is what happened between them), interpolated within the bucket as tpu-info does.

The round is packed as one event, not a row per value, each name written once:
``{"c": [chips], "s": {gauge: value}, "d": {distribution: [p50, p90, p99, p999, mean]}}`` where a
value is a list aligned with ``c`` for per-chip metrics or one number (one list of statistics) for
host-wide ones. Names this agent does not know are kept by name. Values keep 5 significant digits.

>>> r = Round()
>>> r.add("tpu.runtime.tensorcore.dutycycle.percent", 1, 97.123456)
>>> r.add("tpu.runtime.tensorcore.dutycycle.percent", 0, 12.5)
>>> r.add_stats("megascale.grpc_tcp_min_rtt", None, [81.0, 90.0, 99.0, 120.0, 85.0])
>>> r.packed()
{'c': [0, 1], 's': {'tpu.runtime.tensorcore.dutycycle.percent': [12.5, 97.123]}, \
'd': {'megascale.grpc_tcp_min_rtt': [81.0, 90.0, 99.0, 120.0, 85.0]}}
"""

from __future__ import annotations

import math

STATS = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999))  # then the mean: wire.DEVICE_STATS
MAX_CHIPS = 256


def _short(value: float | None) -> float | None:
    return float(f"{value:.5g}") if value is not None and math.isfinite(value) else None


class Round:
    """The values of one round: ``add`` a gauge's, ``add_stats`` a distribution's, then ``packed()``."""

    def __init__(self) -> None:
        self.gauges: dict[str, dict[int | None, float]] = {}
        self.dists: dict[str, dict[int | None, list]] = {}

    def add(self, name: str, chip: int | None, value: float) -> None:
        if math.isfinite(value):
            self.gauges.setdefault(name, {})[chip] = value

    def add_stats(self, name: str, chip: int | None, stats: list) -> None:
        self.dists.setdefault(name, {})[chip] = [_short(v) for v in stats]

    def packed(self) -> dict:
        every = [*self.gauges.values(), *self.dists.values()]
        chips = sorted({c for v in every for c in v if c is not None})
        slot = {c: i for i, c in enumerate(chips)}

        def pack(by_chip: dict, short) -> object:
            if None in by_chip:
                return short(by_chip[None])
            row: list = [None] * len(chips)
            for chip, value in by_chip.items():
                row[slot[chip]] = short(value)
            return row

        out: dict = {"c": chips, "s": {n: pack(v, _short) for n, v in self.gauges.items()}}
        if self.dists:
            out["d"] = {n: pack(v, lambda x: x) for n, v in self.dists.items()}
        return out


def chip_of(metric) -> int | None:
    """The chip a ``Metric`` message belongs to, or None for a host-wide one."""
    value = metric.attribute.value
    kind = value.WhichOneof("attr")
    if kind == "int_attr":
        return value.int_attr if 0 <= value.int_attr < MAX_CHIPS else None
    if kind == "kvlist_attr":
        for attr in value.kvlist_attr.attributes:
            if attr.key in ("device_ordinal", "device-id", "device_id", "chip"):
                inner = attr.value
                which = inner.WhichOneof("attr")
                if which == "int_attr":
                    n = inner.int_attr
                elif which == "string_attr" and inner.string_attr.isdigit():
                    n = int(inner.string_attr)
                else:
                    return None
                return n if 0 <= n < MAX_CHIPS else None
    return None


def bucket_bounds(options, n: int) -> list[float]:
    """Upper bounds of ``n`` buckets (the last one open) as a proto's ``BucketOptions`` says:
    bucket 0 is the underflow, bucket i of exponential buckets ends at ``scale * growth**i``."""
    which = options.WhichOneof("options") if hasattr(options, "WhichOneof") else None
    if which is None:
        for name in ("exponential_buckets", "linear_buckets", "explicit_buckets"):
            if options.HasField(name):
                which = name
                break
    if which == "exponential_buckets":
        e = options.exponential_buckets
        return [e.scale * e.growth_factor**i for i in range(n)]
    if which == "linear_buckets":
        lin = options.linear_buckets
        return [lin.offset + lin.width * i for i in range(n)]
    if which == "explicit_buckets":
        b = list(options.explicit_buckets.bounds)
        return (b + [b[-1] if b else 0.0] * n)[:n]
    return [float(i) for i in range(n)]


def percentile(counts: list[float], bounds: list[float], q: float) -> float | None:
    """The ``q`` quantile of a histogram, interpolated linearly within its bucket.

    >>> percentile([0, 10, 10], [1.0, 2.0, 4.0], 0.5)
    2.0
    >>> percentile([0, 10, 10], [1.0, 2.0, 4.0], 0.75)
    3.0
    """
    total = sum(counts)
    if total <= 0:
        return None
    rank = q * total
    seen = 0.0
    for i, c in enumerate(counts):
        if c <= 0:
            continue
        if seen + c >= rank:
            lo = bounds[i - 1] if i > 0 else 0.0
            hi = bounds[i] if i < len(bounds) else lo
            return lo + (hi - lo) * (rank - seen) / c
        seen += c
    return bounds[-1] if bounds else None


class Deltas:
    """The previous round's cumulative counts per (series, chip): a round's statistics describe
    what happened since the last one, not since libtpu started."""

    def __init__(self) -> None:
        self._last: dict[tuple[str, int | None], tuple[list[float], float, float]] = {}

    def since_last(self, key, counts: list[float], count: float, total: float):
        """``(counts, count, sum)`` of the interval; the cumulative figures on the first round, or
        when the counters went back (libtpu restarted)."""
        prev = self._last.get(key)
        self._last[key] = (counts, count, total)
        if prev is None or len(prev[0]) != len(counts) or count < prev[1]:
            return counts, count, total
        delta = [a - b for a, b in zip(counts, prev[0], strict=True)]
        if any(d < 0 for d in delta):
            return counts, count, total
        return delta, count - prev[1], total - prev[2]


def add_metric(rnd: Round, deltas: Deltas, name: str, metrics) -> int:
    """Add every value of one answer's ``Metric`` messages to ``rnd``; returns how many."""
    added = 0
    dists: dict[int | None, tuple[list[float], float, float, list[float]]] = {}
    for m in metrics:
        chip = chip_of(m)
        if m.HasField("gauge"):
            kind = m.gauge.WhichOneof("value")
            if kind in ("as_int", "as_double", "as_bool"):
                rnd.add(name, chip, float(getattr(m.gauge, kind)))
                added += 1
        elif m.HasField("counter"):
            kind = m.counter.WhichOneof("value")
            if kind:
                rnd.add(name, chip, float(getattr(m.counter, kind)))
                added += 1
        elif m.HasField("summary"):
            stats: list = [None] * (len(STATS) + 1)
            for q in m.summary.quantile:
                at = next((i for i, (_, v) in enumerate(STATS) if abs(v - q.quantile) < 1e-9), None)
                if at is not None:
                    stats[at] = q.value
            if m.summary.sample_count:
                stats[-1] = m.summary.sample_sum / m.summary.sample_count
            if any(v is not None for v in stats):
                rnd.add_stats(name, chip, stats)
                added += sum(v is not None for v in stats)
        elif m.HasField("distribution"):
            d = m.distribution
            counts = [float(c) for c in d.bucket_counts]
            bounds = bucket_bounds(d.bucket_options, len(counts))
            total = d.mean * d.count
            if chip in dists:  # host-wide: several buffer sizes, summed as tpu-info does
                c0, n0, s0, b0 = dists[chip]
                if len(c0) == len(counts):
                    counts = [a + b for a, b in zip(c0, counts, strict=True)]
                    dists[chip] = (counts, n0 + d.count, s0 + total, b0)
                continue
            dists[chip] = (counts, float(d.count), total, bounds)
    for chip, (counts, count, total, bounds) in dists.items():
        counts, count, total = deltas.since_last((name, chip), counts, count, total)
        if count <= 0:
            continue
        stats = [percentile(counts, bounds, q) for _, q in STATS] + [total / count]
        rnd.add_stats(name, chip, stats)
        added += sum(v is not None for v in stats)
    return added
