"""Orbax and Grain metrics from the host's local Prometheus endpoint (``localhost:9431/metrics``).

With ``ENABLE_ORBAX_PROMETHEUS_TELEMETRY=true`` Orbax serves its ``jax.monitoring`` figures there
(the port ``tpu-info`` scrapes; ``ORBAX_PROMETHEUS_PORT`` moves it), and so does Grain with its
own switch (``PYGRAIN_PROMETHEUS_PORT``). The sidecar reads them without touching the training
process, parsed by ``prometheus_client``'s text parser, and turns the growth of each histogram
between two reads into what the server already understands:

- a checkpoint save's blocking time (``jax_orbax_write[_async]_blocking_duration_secs``) becomes
  a ``checkpoint`` event with its ``duration``, and a restore's (``jax_orbax_read_total_duration_secs``,
  all of a synchronous restore; ``jax_orbax_read_async_blocking_duration_secs``) a ``restore``
  event: goodput's checkpoint share, with no user code;
- Grain's input pipeline timings become ``pipeline.grain.*`` series (mean seconds per ``next()``,
  per source read, ...), drawn on the job's input-wait chart.

An endpoint that never answers is the usual case (telemetry is off by default) and is not worth a
line of output; one that answers garbage is said once. Example::

    LocalPrometheusSource(mon, ports=[9431], every=5).start()
"""

from __future__ import annotations

import os
import threading
import time
import urllib.request

from tpuwatch import log, wire

DEFAULT_PORT = 9431
MAX_BYTES = 4 << 20  # a scrape larger than this is not an Orbax/Grain endpoint
# histogram -> (event kind, the histogram of its end times in ms, said when a read holds one save)
SAVES = {
    "jax_orbax_write_blocking_duration_secs": (wire.Kind.CHECKPOINT, "jax_orbax_write_blocking_end_time"),
    "jax_orbax_write_async_blocking_duration_secs": (
        wire.Kind.CHECKPOINT,
        "jax_orbax_write_async_blocking_end_time",
    ),
    # A synchronous restore holds training for all of it (its "blocking" part is a fraction).
    "jax_orbax_read_total_duration_secs": (wire.Kind.RESTORE, None),
    "jax_orbax_read_async_blocking_duration_secs": (wire.Kind.RESTORE, None),
}
# Grain family -> (series name, scale of its values to the series' unit, "mean" | "rate")
GRAIN = {
    "grain_python_dataset_next_duration_ns": (wire.MetricName.GRAIN_NEXT, 1e-9, "mean"),
    "grain_python_dataset_source_read_time_ns": (wire.MetricName.GRAIN_SOURCE_READ, 1e-9, "mean"),
    "grain_python_dataset_prefetch_buffer_ready_count": (wire.MetricName.GRAIN_BUFFER_READY, 1.0, "mean"),
    "grain_python_data_sources_bytes_read": (wire.MetricName.GRAIN_READ_RATE, 1.0, "rate"),
}


def ports_from_env(port: int = DEFAULT_PORT) -> list[int]:
    """The ports to read: ``port``, and those Orbax and Grain were told to use."""
    out = [port]
    for name in ("ORBAX_PROMETHEUS_PORT", "PYGRAIN_PROMETHEUS_PORT"):
        try:
            p = int(os.environ.get(name, ""))
        except ValueError:
            continue
        if 0 < p < 65536 and p not in out:
            out.append(p)
    return out


WANTED = tuple(SAVES) + tuple(end for _, end in SAVES.values() if end) + tuple(GRAIN)


def wanted_lines(text: str) -> str:
    """The lines of a scrape about the families read here (Orbax exports some 60 histograms after a
    save: parsing only these costs a tenth). A family's HELP and TYPE lines stay with it.

    >>> wanted_lines(chr(10).join(["other 1", "jax_orbax_read_total_duration_secs_count 2.0"]))
    'jax_orbax_read_total_duration_secs_count 2.0'
    """
    keep = []
    for line in text.splitlines():
        name = line[7:] if line.startswith(("# HELP ", "# TYPE ")) else line
        if name.startswith(WANTED):
            keep.append(line)
    return "\n".join(keep)


def totals(text: str) -> dict[str, tuple[float, float]]:
    """``{family: (sum, count)}`` of the histograms and summaries in a scrape (label sets added
    up), ``{family: (value, 1)}`` of its counters and gauges. Raises ValueError on bad text."""
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[str, tuple[float, float]] = {}
    for family in text_string_to_metric_families(text):
        total = count = 0.0
        for sample in family.samples:
            if family.type in ("histogram", "summary", "gaugehistogram"):
                if sample.name.endswith(("_sum", "_gsum")):
                    total += sample.value
                elif sample.name.endswith(("_count", "_gcount")):
                    count += sample.value
            elif sample.name in (family.name, family.name + "_total"):
                total, count = total + sample.value, 1.0
        out[family.name] = (total, count)
    return out


class LocalPrometheusSource:
    """Reads the local Prometheus endpoints every ``every`` seconds; records what grew."""

    name = "Orbax/Grain metrics (local Prometheus endpoint)"

    def __init__(self, monitor, ports: list[int] | None = None, every: float = 5.0, timeout: float = 1.0):
        self.monitor = monitor
        self.ports = ports or ports_from_env()
        self.every = every
        self.timeout = timeout
        self.reads = 0
        self.problem: str | None = None
        self._last: dict[int, tuple[float, dict]] = {}  # port -> (when, totals) of its last read
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tpuwatch-local-prometheus", daemon=True)

    def start(self) -> LocalPrometheusSource:
        self._thread.start()
        return self

    def stop(self, timeout: float = 1.0) -> None:
        self._stop.set()
        self._thread.join(timeout)
        if not self._thread.is_alive():
            self.sample()  # a last read: the save just before the end counts too

    def sample(self) -> int:
        """Read every port once; returns how many events and values were recorded. Never raises."""
        recorded = 0
        for port in self.ports:
            try:
                text = self._fetch(port)
            except OSError as exc:
                self.problem = f"port {port}: {exc}"  # telemetry off: the usual case, said nowhere
                continue
            try:
                if not isinstance(text, str):
                    raise ValueError(f"Content-Type {text[0]}")
                now_totals = totals(wanted_lines(text))
            except ImportError as exc:
                self.problem = f"{exc.name or exc} is not installed (pip install 'tpuwatch[tpu]')"
                log.warn_once("local-prometheus", f"{self.name} at :{port} answers, but {self.problem}")
                continue
            except Exception as exc:
                self.problem = f"port {port}: not Prometheus text ({type(exc).__name__}: {exc})"
                log.warn_once(f"local-prometheus-{port}", f"{self.name} at :{port}: {self.problem}")
                continue
            now = time.time()
            previous = self._last.get(port)
            self._last[port] = (now, now_totals)
            recorded += self._record(now, previous, now_totals)
            self.reads += 1
            self.problem = None
        return recorded

    def _fetch(self, port: int) -> str | tuple[str]:
        """The scrape's text, or ``(content type,)`` when what answers is no Prometheus endpoint."""
        url = f"http://127.0.0.1:{port}/metrics"
        with urllib.request.urlopen(url, timeout=self.timeout) as resp:  # noqa: S310 - loopback only
            kind = resp.headers.get_content_type()
            if kind not in ("text/plain", "application/openmetrics-text"):
                return (kind,)
            body = resp.read(MAX_BYTES + 1)
        if len(body) > MAX_BYTES:
            raise OSError(f"more than {MAX_BYTES} bytes: not an Orbax/Grain endpoint")
        return body.decode("utf-8", "replace")

    def _record(self, now: float, previous: tuple[float, dict] | None, current: dict) -> int:
        # The first read counts from zero: the endpoint lives in the job's own process.
        since, before = previous if previous is not None else (None, {})
        recorded = 0
        for family, (kind, end_family) in SAVES.items():
            took, n = _grown(before.get(family), current.get(family))
            if n <= 0 or took < 0:
                continue
            ts = now
            end_sum, end_n = _grown(before.get(end_family), current.get(end_family)) if end_family else (0, 0)
            if n == 1 and end_n == 1 and 0 < now - end_sum / 1000.0 < 3600:  # one save: its own end
                ts = end_sum / 1000.0
            what = "checkpoint saved" if kind == wire.Kind.CHECKPOINT else "checkpoint restored"
            self.monitor.event_at(
                ts,
                kind,
                f"{what} (Orbax: {int(n)} in {took:.3f} s blocking training)",
                duration=round(took, 6),
                source="orbax",
                count=int(n),
                blocking=True,
            )
            recorded += 1
        for family, (name, scale, how) in GRAIN.items():
            if family not in current:
                continue
            total, n = _grown(before.get(family), current.get(family))
            if how == "mean" and n > 0:
                self.monitor.metric(name, total / n * scale, ts=now)
                recorded += 1
            elif how == "rate" and since is not None and now > since and total >= 0:
                self.monitor.metric(name, total * scale / (now - since), ts=now)
                recorded += 1
        return recorded

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.sample()
            except Exception as exc:  # a library surprise is never training's problem
                log.warn_once("local-prometheus", f"{self.name}: {type(exc).__name__}: {exc}")


def _grown(before: tuple[float, float] | None, after: tuple[float, float] | None) -> tuple[float, float]:
    """(sum, count) added between two reads; a reset counter (the process restarted) counts anew.

    >>> _grown((2.0, 1), (5.0, 3)), _grown(None, (1.5, 1)), _grown((9.0, 4), (1.0, 1)), _grown((1, 1), None)
    ((3.0, 2), (1.5, 1), (1.0, 1), (0.0, 0))
    """
    if after is None:
        return 0.0, 0
    if before is None or after[1] < before[1]:
        return after
    return after[0] - before[0], after[1] - before[1]
