"""HBM and duty cycle per chip from libtpu's runtime metrics service (gRPC, ``localhost:8431``).

libtpu holds the chips, so the sidecar never opens the TPU; it asks the service libtpu runs inside
the training process (``tpu.monitoring.runtime.RuntimeMetricService``), with the client generated
from the proto that the ``tpu-info`` package ships. One channel is kept for the whole run; every
call has a short deadline. Until the training process has started libtpu (or on a machine with no
TPU) the service refuses: that is said once, and the source keeps trying at a slower pace.
Example::

    TpuMetricsSource(mon, "localhost:8431", every=5).start()
"""

from __future__ import annotations

import math
import threading

from tpuwatch import log, wire

# libtpu metric name -> (tpuwatch metric name, which gauge field holds the value)
METRICS = {
    "tpu.runtime.hbm.memory.usage.bytes": wire.MetricName.HBM_USED,
    "tpu.runtime.hbm.memory.total.bytes": wire.MetricName.HBM_TOTAL,
    "tpu.runtime.tensorcore.dutycycle.percent": wire.MetricName.DUTY_CYCLE,
}
MAX_CHIPS = 256


class SourceError(Exception):
    """Why the service could not be read, in words for the one line the user sees."""


class TpuMetricsClient:
    """A reused channel to the runtime metrics service and the three reads the agent needs."""

    def __init__(self, address: str = "localhost:8431", timeout: float = 1.0) -> None:
        import grpc
        from tpu_info.proto import tpu_metric_service_pb2 as pb
        from tpu_info.proto import tpu_metric_service_pb2_grpc as pb_grpc

        self._grpc, self._pb = grpc, pb
        self.address = address
        self.timeout = timeout
        # libtpu serves on loopback with local credentials, as tpu-info connects to it.
        self.channel = grpc.secure_channel(address, grpc.local_channel_credentials())
        self.stub = pb_grpc.RuntimeMetricServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def supported(self) -> set[str]:
        resp = self._call(self.stub.ListSupportedMetrics, self._pb.ListSupportedMetricsRequest())
        return {m.metric_name for m in resp.supported_metric}

    def read(self, metric_name: str) -> list[tuple[int, float]]:
        """``(chip, value)`` pairs of one metric; entries that make no sense are left out."""
        resp = self._call(self.stub.GetRuntimeMetric, self._pb.MetricRequest(metric_name=metric_name))
        if resp.metric.name and resp.metric.name != metric_name:
            raise SourceError(f"asked for {metric_name}, got {resp.metric.name!r}")
        out = []
        for i, m in enumerate(resp.metric.metrics):
            attr = m.attribute.value
            chip = attr.int_attr if attr.WhichOneof("attr") == "int_attr" else i
            kind = m.gauge.WhichOneof("value") if m.HasField("gauge") else None
            if kind == "as_int":
                value = float(m.gauge.as_int)
            elif kind == "as_double":
                value = m.gauge.as_double
            else:
                continue
            if not (0 <= chip < MAX_CHIPS) or not math.isfinite(value) or value < 0:
                continue
            out.append((chip, value))
        return out

    def _call(self, method, request):
        grpc = self._grpc
        try:
            return method(request, timeout=self.timeout)
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            name = code.name if code is not None else "ERROR"
            details = (exc.details() if hasattr(exc, "details") else "") or ""
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                raise SourceError(f"no answer within {self.timeout:g} s (DEADLINE_EXCEEDED)") from exc
            if code == grpc.StatusCode.UNAVAILABLE:
                raise SourceError(f"nothing serving there (UNAVAILABLE: {details[:120]})") from exc
            raise SourceError(f"{name}: {details[:160]}") from exc


class TpuMetricsSource:
    """Samples HBM used/total and duty cycle per chip into ``monitor`` every ``every`` seconds."""

    name = "tpu metrics (libtpu runtime metrics service)"

    def __init__(self, monitor, address: str = "localhost:8431", every: float = 5.0, timeout: float = 1.0):
        self.monitor = monitor
        self.address = address
        self.every = every
        self.timeout = timeout
        self.samples = 0
        self.failures = 0
        self.problem: str | None = None
        self._client: TpuMetricsClient | None = None
        self._wanted: list[str] | None = None
        self._said: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tpuwatch-tpu-metrics", daemon=True)

    def start(self) -> TpuMetricsSource:
        self._thread.start()
        return self

    def stop(self, timeout: float = 1.0) -> None:
        self._stop.set()
        self._thread.join(timeout)
        if self._client is not None:
            try:
                self._client.close()
            except Exception:
                pass

    def sample(self) -> int:
        """Read the metrics once; returns the number of values recorded. Raises SourceError."""
        if self._client is None:
            try:
                self._client = TpuMetricsClient(self.address, self.timeout)
            except ImportError as exc:
                raise SourceError(
                    f"{exc.name or exc} is not installed (pip install 'tpuwatch[tpu]')"
                ) from exc
        if self._wanted is None:
            supported = self._client.supported()
            self._wanted = [m for m in METRICS if m in supported]
            if not self._wanted:
                self._wanted = None
                raise SourceError(f"the service lists none of {', '.join(METRICS)}")
        recorded = 0
        for libtpu_name in self._wanted:
            for chip, value in self._client.read(libtpu_name):
                self.monitor.metric(METRICS[libtpu_name], value, chip=chip)
                recorded += 1
        if not recorded:
            raise SourceError("the service answered with no usable per-chip values")
        self.samples += 1
        return recorded

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.sample()
                if self.problem is not None and "up" not in self._said:
                    self._said.add("up")
                    log.warn(f"{self.name} at {self.address}: now answering")
                self.problem = None
                self.failures = 0
            except SourceError as exc:
                self._failed(str(exc))
            except Exception as exc:  # a garbled answer or a library surprise: never training's problem
                self._failed(f"{type(exc).__name__}: {exc}")
            # libtpu starts with the training process, often seconds after us: keep trying, slower.
            wait = self.every if self.failures == 0 else min(60.0, self.every * 2 ** min(self.failures, 4))
            if self._stop.wait(wait):
                return

    def _failed(self, why: str) -> None:
        self.failures += 1
        if "down" not in self._said:  # one line per run, however often it flaps
            self._said.add("down")
            log.warn(
                f"{self.name} at {self.address} unavailable: {why}; no per-chip HBM or duty-cycle "
                "series from it (training is not affected)"
            )
        self.problem = why
