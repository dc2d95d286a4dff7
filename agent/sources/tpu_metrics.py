"""Every metric libtpu's runtime metrics service offers (gRPC, ``localhost:8431``), and the cores'
state when the server asks for it.

libtpu holds the chips, so the sidecar never opens the TPU; it asks the service libtpu runs inside
the training process (``tpu.monitoring.runtime.RuntimeMetricService``), with the client generated
from the proto that the ``tpu-info`` package ships. One channel is kept for the whole run; every
call has a short deadline, and a round stops at ``round_budget`` seconds whatever is left. Until
the training process has started libtpu (or on a machine with no TPU) the service refuses: that is
said once, and the source keeps trying at a slower pace.

Each round reads every metric ``ListSupportedMetrics`` names (asked again every
``RELIST_ROUNDS`` rounds: libtpu adds the megascale metrics once a multi-slice job connects) and
sends it as one ``device`` event (device_round.py); HBM used/total and duty cycle also go out as
the per-chip metric samples the charts and alerts read. When an answer to a batch carries a
``core_state`` ask (agent/asks.py), the next moment reads ``GetTpuRuntimeStatus`` once and sends
a ``core_state`` event. Example::

    TpuMetricsSource(mon, "localhost:8431", every=5).start()
"""

from __future__ import annotations

import math
import threading
import time

from tpuwatch import log, wire
from tpuwatch.sources import core_state
from tpuwatch.sources.device_round import Deltas, Round, add_metric

# libtpu metric name -> (tpuwatch metric name, which gauge field holds the value)
METRICS = {
    "tpu.runtime.hbm.memory.usage.bytes": wire.MetricName.HBM_USED,
    "tpu.runtime.hbm.memory.total.bytes": wire.MetricName.HBM_TOTAL,
    "tpu.runtime.tensorcore.dutycycle.percent": wire.MetricName.DUTY_CYCLE,
}
MAX_CHIPS = 256
MAX_METRICS = 200  # names taken from one ListSupportedMetrics answer
RELIST_ROUNDS = 60


class SourceError(Exception):
    """Why the service could not be read, in words for the one line the user sees."""


class NotServed(SourceError):
    """The service is up but does not serve this metric or call (another libtpu version)."""


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

    def metric(self, metric_name: str):
        """The ``TPUMetric`` message of one metric (every chip's or buffer size's values)."""
        resp = self._call(self.stub.GetRuntimeMetric, self._pb.MetricRequest(metric_name=metric_name))
        if resp.metric.name and resp.metric.name != metric_name:
            raise SourceError(f"asked for {metric_name}, got {resp.metric.name!r}")
        return resp.metric

    def runtime_status(self, timeout: float | None = None):
        """``GetTpuRuntimeStatus`` with HLO locations (what ``tpu-info`` shows as TPU-Z)."""
        request = self._pb.GetTpuRuntimeStatusRequest(include_hlo_info=True)
        return self._call(self.stub.GetTpuRuntimeStatus, request, timeout)

    def read(self, metric_name: str) -> list[tuple[int, float]]:
        """``(chip, value)`` pairs of one per-chip gauge; entries that make no sense are left out."""
        return _gauges(self.metric(metric_name))

    def _call(self, method, request, timeout: float | None = None):
        grpc = self._grpc
        try:
            return method(request, timeout=timeout or self.timeout)
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            name = code.name if code is not None else "ERROR"
            details = (exc.details() if hasattr(exc, "details") else "") or ""
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                raise SourceError(f"no answer within {self.timeout:g} s (DEADLINE_EXCEEDED)") from exc
            if code == grpc.StatusCode.UNAVAILABLE:
                raise SourceError(f"nothing serving there (UNAVAILABLE: {details[:120]})") from exc
            if code in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.UNIMPLEMENTED):
                raise NotServed(f"{name}: {details[:160]}") from exc
            raise SourceError(f"{name}: {details[:160]}") from exc


class TpuMetricsSource:
    """Samples every runtime metric into ``monitor`` every ``every`` seconds, and reads the cores'
    state once per ``core_state`` ask the monitor's sender heard."""

    name = "tpu metrics (libtpu runtime metrics service)"

    def __init__(
        self,
        monitor,
        address: str = "localhost:8431",
        every: float = 5.0,
        timeout: float = 1.0,
        round_budget: float | None = None,
        clock=time.time,
    ):
        self.monitor = monitor
        self.address = address
        self.every = every
        self.timeout = timeout
        self.round_budget = round_budget if round_budget is not None else max(2.0, 3 * timeout)
        self.clock = clock  # wall-clock stamps of rounds (a test's simulated clock)
        self.samples = 0
        self.failures = 0
        self.core_reads = 0
        self.problem: str | None = None
        self._client: TpuMetricsClient | None = None
        self._supported: list[str] | None = None
        self._skip: set[str] = set()  # listed but not served (NOT_FOUND): not asked again until a relist
        self._deltas = Deltas()
        self._said: set[str] = set()
        self._stop = threading.Event()
        self._asks = getattr(monitor, "asks", None)
        self._thread = threading.Thread(target=self._run, name="tpuwatch-tpu-metrics", daemon=True)

    def start(self) -> TpuMetricsSource:
        self._thread.start()
        return self

    def stop(self, timeout: float = 1.0) -> None:
        self._stop.set()
        if self._asks is not None:
            self._asks.wake.set()
        self._thread.join(timeout)
        if self._client is not None:
            try:
                self._client.close()
            except Exception:
                pass

    def _connect(self) -> TpuMetricsClient:
        if self._client is None:
            try:
                self._client = TpuMetricsClient(self.address, self.timeout)
            except ImportError as exc:
                raise SourceError(
                    f"{exc.name or exc} is not installed (pip install 'tpuwatch[tpu]')"
                ) from exc
        return self._client

    def sample(self) -> int:
        """Read every metric once; returns the number of values recorded. Raises SourceError."""
        client = self._connect()
        if self._supported is None or self.samples % RELIST_ROUNDS == RELIST_ROUNDS - 1:
            names = sorted(client.supported())[:MAX_METRICS]
            if not names:
                raise SourceError("the service lists no metrics")
            self._supported, self._skip = names, set()
        started = time.monotonic()
        ts = self.clock()
        rnd = Round()
        recorded = 0
        for libtpu_name in self._supported:
            if libtpu_name in self._skip:
                continue
            if time.monotonic() - started > self.round_budget:
                log.warn_once("tpu-round", f"{self.name}: a round passed {self.round_budget:g} s; cut short")
                break
            try:
                metric = client.metric(libtpu_name)
            except NotServed:
                self._skip.add(libtpu_name)
                continue
            recorded += add_metric(rnd, self._deltas, libtpu_name, metric.metrics)
            if libtpu_name in METRICS:
                for chip, value in _gauges(metric):
                    self.monitor.metric(METRICS[libtpu_name], value, chip=chip, ts=ts)
        if not recorded:
            raise SourceError("the service answered with no usable values")
        self.monitor.event_at(ts, wire.Kind.DEVICE, "", **rnd.packed())
        self.samples += 1
        return recorded

    def read_cores(self, ask_id: str | None = None) -> int:
        """Read the cores' state once and record it as a ``core_state`` event; returns the cores."""
        client = self._connect()
        ts = self.clock()
        try:
            cores = core_state.summarise(client.runtime_status(timeout=max(self.timeout, 5.0)))
            error = None
        except SourceError as exc:
            cores, error = [], str(exc)
        self.core_reads += 1
        message = f"{len(cores)} cores" if error is None else f"cannot read the cores' state: {error}"
        self.monitor.event_at(ts, wire.Kind.CORE_STATE, message, cores=cores, ask=ask_id, error=error)
        return len(cores)

    def _run(self) -> None:
        next_round = time.monotonic()
        while not self._stop.is_set():
            ask = self._asks.take(wire.Ask.CORE_STATE) if self._asks is not None else None
            if ask is not None:
                self._guard(self.read_cores, ask)
            if time.monotonic() >= next_round:
                if self._guard(self.sample):
                    if self.problem is not None and "up" not in self._said:
                        self._said.add("up")
                        log.warn(f"{self.name} at {self.address}: now answering")
                    self.problem = None
                    self.failures = 0
                # libtpu starts with the training process, often seconds after us: keep trying, slower.
                backoff = min(60.0, self.every * 2 ** min(self.failures, 4))
                next_round = time.monotonic() + (self.every if self.failures == 0 else backoff)
            # An ask wakes the loop at once: the core state is wanted while the stall is fresh.
            if self._asks is not None:
                self._asks.wake.wait(max(0.0, next_round - time.monotonic()))
                self._asks.wake.clear()
            elif self._stop.wait(max(0.0, next_round - time.monotonic())):
                return

    def _guard(self, read, *args) -> bool:
        try:
            read(*args)
            return True
        except SourceError as exc:
            self._failed(str(exc))
        except Exception as exc:  # a garbled answer or a library surprise: never training's problem
            self._failed(f"{type(exc).__name__}: {exc}")
        return False

    def _failed(self, why: str) -> None:
        self.failures += 1
        if "down" not in self._said:  # one line per run, however often it flaps
            self._said.add("down")
            log.warn(
                f"{self.name} at {self.address} unavailable: {why}; no TPU runtime metrics "
                "from it (training is not affected)"
            )
        self.problem = why


def _gauges(metric) -> list[tuple[int, float]]:
    """``(chip, value)`` of a per-chip gauge; entries that make no sense are left out."""
    out = []
    for i, m in enumerate(metric.metrics):
        attr = m.attribute.value
        chip = attr.int_attr if attr.WhichOneof("attr") == "int_attr" else i
        kind = m.gauge.WhichOneof("value") if m.HasField("gauge") else None
        if kind == "as_int":
            value = float(m.gauge.as_int)
        elif kind == "as_double":
            value = m.gauge.as_double
        else:
            continue
        if 0 <= chip < MAX_CHIPS and math.isfinite(value) and value >= 0:
            out.append((chip, value))
    return out
