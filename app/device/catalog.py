"""What tpuwatch knows about libtpu's runtime metrics: a label and a unit for each name it has met.
A name not here is still stored, charted and exported, under its own name.

>>> describe("megascale.collective_end_to_end_latencies.microsecond.cumulative.distribution|p99")
('Collective end-to-end latency p99', 'µs', True)
>>> describe("tpu.runtime.new.thing.gauge")
('tpu.runtime.new.thing.gauge', '', False)
"""

from __future__ import annotations

SEP = "|"  # between a distribution's name and its statistic (agent/sources/device_round.py)
STATS = ("p50", "p90", "p99", "p999", "mean")
STAT_LABELS = {"p50": "p50", "p90": "p90", "p99": "p99", "p999": "p99.9", "mean": "mean"}

HBM_USED = "tpu.runtime.hbm.memory.usage.bytes"
HBM_TOTAL = "tpu.runtime.hbm.memory.total.bytes"
DUTY = "tpu.runtime.tensorcore.dutycycle.percent"
IDLE = "tpu.runtime.tensorcore.idle_duration.seconds"
HBM_BW = "tpu.runtime.hbm.utilization.percent"
QUEUE = "hlo.queue.size.gauge"
HLO_TIMING = "hlo.execution.timing.distribution.microseconds"
_MS = "megascale.{}.cumulative.distribution"
COLLECTIVE = _MS.format("collective_end_to_end_latencies.microsecond")

KNOWN: dict[str, tuple[str, str]] = {
    HBM_USED: ("HBM used", "bytes"),
    HBM_TOTAL: ("HBM total", "bytes"),
    DUTY: ("TensorCore duty cycle", "%"),
    HBM_BW: ("HBM bandwidth utilization", "%"),
    IDLE: ("TensorCore idle duration", "s"),
    QUEUE: ("HLO queue size", "programs"),
    HLO_TIMING: ("HLO execution time", "µs"),
    _MS.format("dcn_transfer_latencies.microsecond"): ("DCN transfer latency", "µs"),
    _MS.format("dcn_inbound_transfer_latencies.microsecond"): ("DCN inbound transfer latency", "µs"),
    _MS.format("host_to_device_transfer_latencies.microsecond"): ("Host-to-device transfer latency", "µs"),
    _MS.format("device_to_host_transfer_latencies.microsecond"): ("Device-to-host transfer latency", "µs"),
    COLLECTIVE: ("Collective end-to-end latency", "µs"),
    _MS.format("mxla_compute_latencies.microsecond"): ("Host compute latency", "µs"),
    _MS.format("grpc_tcp_min_rtt.microsecond"): ("gRPC TCP min RTT", "µs"),
    _MS.format("grpc_tcp_delivery_rate.Mbps"): ("gRPC TCP delivery rate", "Mbps"),
}


def split(series: str) -> tuple[str, str]:
    """``(metric name, stat)``: ``stat`` is ``value`` for a gauge or counter."""
    name, sep, stat = series.rpartition(SEP)
    return (name, stat) if sep and stat in STATS else (series, "value")


def describe(series: str) -> tuple[str, str, bool]:
    """``(label, unit, known)`` of a series."""
    name, stat = split(series)
    if name not in KNOWN:
        return series, "", False
    label, unit = KNOWN[name]
    return (label if stat == "value" else f"{label} {STAT_LABELS[stat]}"), unit, True


def order(series: str) -> tuple:
    """Known metrics in the catalog's order (a distribution's stats together), unknown ones last."""
    name, stat = split(series)
    known = list(KNOWN)
    stat_at = ("value", *STATS).index(stat)
    return (known.index(name), "", stat_at) if name in known else (len(known), name, stat_at)
