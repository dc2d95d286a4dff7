"""libtpu's runtime metrics service, faked from the proto tpu-info ships, serving what a v5e host's
libtpu serves: every metric tpu-info knows (per-chip gauges, per-chip HLO queue and execution
timing, the megascale latency distributions per buffer size), one it does not
(``tpu.runtime.uptime.seconds.gauge``), and ``GetTpuRuntimeStatus`` with a state per core.

Distributions are cumulative, as libtpu's are: every read adds ``SAMPLES`` samples drawn around
the metric's typical value (log-normal, deterministic) to exponential buckets, so two reads differ
by what "happened" between them. A test changes values through the attributes (``duty``,
``idle_s``, ``latency_us`` ...) and the cores' places with ``place``.
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from concurrent import futures

import grpc
from tpu_info.proto import tpu_metric_service_pb2 as pb
from tpu_info.proto import tpu_metric_service_pb2_grpc as pb_grpc
from tpu_info.proto import tpu_telemetry_pb2 as tel

SERVICE = "tpu.monitoring.runtime.RuntimeMetricService"
SCALE, GROWTH, BUCKETS = 1.0, 1.4, 48  # exponential buckets: 1 us .. 1.4**46 us (~5 min)
SAMPLES = 64
SIGMA = 0.25
_Z = [statistics.NormalDist().inv_cdf((i + 0.5) / SAMPLES) for i in range(SAMPLES)]

HBM_USED = "tpu.runtime.hbm.memory.usage.bytes"
HBM_TOTAL = "tpu.runtime.hbm.memory.total.bytes"
DUTY = "tpu.runtime.tensorcore.dutycycle.percent"
HBM_UTIL = "tpu.runtime.hbm.utilization.percent"
IDLE = "tpu.runtime.tensorcore.idle_duration.seconds"
QUEUE = "hlo.queue.size.gauge"
HLO_TIMING = "hlo.execution.timing.distribution.microseconds"
UPTIME = "tpu.runtime.uptime.seconds.gauge"  # listed by the service, unknown to tpuwatch
_MS = "megascale.{}.cumulative.distribution"
MEGASCALE = {
    _MS.format("dcn_transfer_latencies.microsecond"): 900.0,
    _MS.format("dcn_inbound_transfer_latencies.microsecond"): 850.0,
    _MS.format("host_to_device_transfer_latencies.microsecond"): 120.0,
    _MS.format("device_to_host_transfer_latencies.microsecond"): 140.0,
    _MS.format("collective_end_to_end_latencies.microsecond"): 2500.0,
    _MS.format("mxla_compute_latencies.microsecond"): 400.0,
    _MS.format("grpc_tcp_min_rtt.microsecond"): 80.0,
    _MS.format("grpc_tcp_delivery_rate.Mbps"): 9000.0,
}
COLLECTIVE_NAME = _MS.format("collective_end_to_end_latencies.microsecond")
ALL_METRICS = [HBM_USED, HBM_TOTAL, DUTY, HBM_UTIL, IDLE, QUEUE, HLO_TIMING, *MEGASCALE, UPTIME]
BUFFER_SIZES = ("1MB+", "16MB+")


def histogram(center: float) -> list[int]:
    """``SAMPLES`` log-normal samples around ``center`` in the fake's exponential buckets."""
    counts = [0] * BUCKETS
    for z in _Z:
        v = center * math.exp(SIGMA * z)
        i = 0 if v < SCALE else min(BUCKETS - 1, int(math.log(v / SCALE) / math.log(GROWTH)) + 1)
        counts[i] += 1
    return counts


class Core:
    """Where one core is: the program it runs (fingerprint, launch), its tensor-core sequencer's
    HLO location and program counter, the programs queued behind it, its error message."""

    def __init__(self, program: bytes = b"\x9a\x1f\x07\x33\xc0\xde", launch: int = 1, hlo: str = "", pc=0):
        self.program, self.launch, self.hlo, self.pc = program, launch, hlo, pc
        self.queued = 1
        self.error = ""


class MetricService:
    """The service for ``chips`` chips (``cores_per_chip`` TensorCores each), values a test changes."""

    def __init__(
        self, chips: int = 2, mode: str = "ok", delay: float = 2.0, cores_per_chip: int = 1, host: str = "w-0"
    ) -> None:
        self.mode, self.delay, self.chips, self.host = mode, delay, chips, host
        self.used = {c: (c + 1) * 1_000_000_000 for c in range(chips)}
        self.total = {c: 16 * 2**30 for c in range(chips)}
        self.duty = {c: 50.0 + c for c in range(chips)}
        self.hbm_util = {c: 35.0 + c for c in range(chips)}
        self.idle_s = {c: 0.004 for c in range(chips)}
        self.queue = {c: 2 for c in range(chips)}
        self.hlo_us = {c: 1800.0 for c in range(chips)}
        self.latency_us = dict(MEGASCALE)
        self.uptime = 3600.0
        self.listed = list(ALL_METRICS)
        self.cores = {i: Core(hlo="fusion.12", pc=4096 + i) for i in range(chips * cores_per_chip)}
        self._counts: dict[tuple[str, str], list[int]] = {}
        self._lock = threading.Lock()
        self.calls: list[str] = []
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        if mode == "garbage":
            # Bytes that are not a protobuf message: the client must fail to decode them.
            handler = grpc.method_handlers_generic_handler(
                SERVICE,
                {
                    name: grpc.unary_unary_rpc_method_handler(
                        self._garbage, request_deserializer=None, response_serializer=None
                    )
                    for name in ("ListSupportedMetrics", "GetRuntimeMetric", "GetTpuRuntimeStatus")
                },
            )
            self.server.add_generic_rpc_handlers((handler,))
        else:
            pb_grpc.add_RuntimeMetricServiceServicer_to_server(_Servicer(self), self.server)
        creds = grpc.local_server_credentials(grpc.LocalConnectionType.LOCAL_TCP)
        self.port = self.server.add_secure_port("127.0.0.1:0", creds)
        self.address = f"127.0.0.1:{self.port}"

    def place(self, hlo: str, program: bytes | None = None, launch: int | None = None, queued: int = 1):
        """Put every core at ``hlo`` (``""`` with ``queued=0`` and no program: idle)."""
        for core in self.cores.values():
            core.hlo, core.queued = hlo, queued
            if program is not None:
                core.program = program
            if launch is not None:
                core.launch = launch

    def cumulative(self, name: str, key: str, center: float) -> list[int]:
        """The bucket counts of one distribution after this read's samples are added."""
        with self._lock:
            counts = self._counts.setdefault((name, key), [0] * BUCKETS)
            for i, n in enumerate(histogram(center)):
                counts[i] += n
            return list(counts)

    def _garbage(self, request, context):
        self.calls.append("garbage")
        return b"\xff\xff\xff\xff\x0f not a protobuf"

    def __enter__(self) -> MetricService:
        self.server.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.stop(0)


def _chip_attr(chip: int) -> pb.Attribute:
    return pb.Attribute(key="device-id", value=pb.AttrValue(int_attr=chip))


def _kv(**pairs: str) -> pb.Attribute:
    attrs = [pb.Attribute(key=k, value=pb.AttrValue(string_attr=v)) for k, v in pairs.items()]
    return pb.Attribute(value=pb.AttrValue(kvlist_attr=pb.KeyValueList(attributes=attrs)))


def _distribution(counts: list[int], center: float) -> pb.Distribution:
    options = pb.Distribution.BucketOptions(
        exponential_buckets=pb.Distribution.BucketOptions.Exponential(
            num_finite_buckets=BUCKETS - 2, growth_factor=GROWTH, scale=SCALE
        )
    )
    n = sum(counts)
    return pb.Distribution(count=n, mean=center, bucket_options=options, bucket_counts=counts)


class _Servicer(pb_grpc.RuntimeMetricServiceServicer):
    def __init__(self, fake: MetricService) -> None:
        self.fake = fake

    def _maybe_slow(self):
        if self.fake.mode == "slow":
            time.sleep(self.fake.delay)

    def ListSupportedMetrics(self, request, context):
        self.fake.calls.append("ListSupportedMetrics")
        self._maybe_slow()
        return pb.ListSupportedMetricsResponse(
            supported_metric=[pb.SupportedMetric(metric_name=n) for n in self.fake.listed]
        )

    def GetRuntimeMetric(self, request, context):
        name = request.metric_name
        self.fake.calls.append(name)
        self._maybe_slow()
        f = self.fake
        gauges = {HBM_USED: f.used, HBM_TOTAL: f.total, DUTY: f.duty, HBM_UTIL: f.hbm_util, IDLE: f.idle_s}
        metrics = []
        if name in gauges:
            for chip, value in sorted(gauges[name].items()):
                is_int = name in (HBM_USED, HBM_TOTAL)
                gauge = pb.Gauge(as_int=int(value)) if is_int else pb.Gauge(as_double=float(value))
                metrics.append(pb.Metric(attribute=_chip_attr(chip), gauge=gauge))
        elif name == QUEUE:
            for chip, n in sorted(f.queue.items()):
                attr = _kv(device_ordinal=str(chip), core_type="tensor_core")
                metrics.append(pb.Metric(attribute=attr, gauge=pb.Gauge(as_int=int(n))))
        elif name == HLO_TIMING:
            for chip, center in sorted(f.hlo_us.items()):
                attr = _kv(device_ordinal=str(chip), core_type="tensor_core")
                counts = f.cumulative(name, str(chip), center)
                metrics.append(pb.Metric(attribute=attr, distribution=_distribution(counts, center)))
        elif name in f.latency_us:
            center = f.latency_us[name]
            for size in BUFFER_SIZES:
                counts = f.cumulative(name, size, center)
                attr = _kv(**{"buffer-size": size})
                metrics.append(pb.Metric(attribute=attr, distribution=_distribution(counts, center)))
        elif name == UPTIME:
            metrics.append(pb.Metric(gauge=pb.Gauge(as_double=f.uptime)))
        else:
            context.abort(grpc.StatusCode.NOT_FOUND, f"metric {name} not found")
        return pb.MetricResponse(metric=pb.TPUMetric(name=name, metrics=metrics))

    def GetTpuRuntimeStatus(self, request, context):
        self.fake.calls.append("GetTpuRuntimeStatus")
        self._maybe_slow()
        states = {}
        per_chip = max(1, len(self.fake.cores) // max(1, self.fake.chips))
        for core_id, core in self.fake.cores.items():
            seq = tel.SequencerInfo(
                sequencer_type=tel.TPU_SEQUENCER_TYPE_TENSOR_CORE_SEQUENCER,
                sequencer_index=0,
                pc=core.pc,
                program_id=7,
                run_id=core.launch,
            )
            if request.include_hlo_info and core.hlo:
                seq.hlo_location = core.hlo
                seq.hlo_detailed_info = f"{core.hlo} = f32[1024,1024] ..."
            states[core_id] = tel.CurrentCoreStateSummary(
                core_id=tel.TpuCoreIdentifier(
                    global_core_id=core_id,
                    chip_id=core_id // per_chip,
                    core_on_chip=tel.TpuCoreOnChipProto(
                        type=tel.TPU_CORE_TYPE_TENSOR_CORE, index=core_id % per_chip
                    ),
                ),
                sequencer_info=[seq],
                program_fingerprint=core.program if core.hlo or core.queued else b"",
                launch_id=core.launch,
                queued_program_info=[
                    tel.QueuedProgramInfo(run_id=core.launch, launch_id=core.launch + 1 + i)
                    for i in range(core.queued)
                ],
                error_message=core.error,
            )
        return pb.GetTpuRuntimeStatusResponse(host_name=self.fake.host, core_states=states)
