"""Starts and stops the sidecar's background sources; the sidecar calls these three functions.

``identify`` runs once before the child starts (it decides the run id and host index of a slice
worker, within about a second); ``start_sources`` runs after the child started; ``finish`` runs
after the child exited (stop the threads, archive the log). None of them can raise.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tpuwatch import config, log, wire


@dataclass
class SourceOptions:
    """What the sources should do; the CLI flags fill it in."""

    tpu_metrics: bool = True
    metrics_port: int = 8431
    metrics_host: str = "localhost"
    metrics_every: float = 5.0
    prometheus_port: int = 9431  # Orbax / Grain metrics (sources/local_prometheus.py); 0: off
    prometheus_every: float = 5.0
    tpu_api_endpoint: str | None = None
    tpu_node: str | None = None
    node_poll: float = 45.0
    archive: str | None = None
    launch: str | None = None
    stall_floor: float = 300.0
    stall_factor: float = 20.0
    identity_timeout: float = 1.0
    identity: dict = field(default_factory=dict)  # flag overrides: tpu_name, zone, worker, ...


@dataclass
class Running:
    threads: list = field(default_factory=list)


def identify(options: SourceOptions) -> dict:
    """This worker's identity (metadata server, hostname, env, flags); never raises."""
    from tpuwatch.sources import identity

    result: dict = {}

    def ask() -> None:
        try:
            result.update(identity.resolve(options.identity, timeout=options.identity_timeout))
        except Exception as exc:
            log.warn_once("identity", f"identity: {type(exc).__name__}: {exc}")

    # A thread with a hard join bound: a resolver stuck in DNS must not hold the child back.
    t = threading.Thread(target=ask, name="tpuwatch-identity", daemon=True)
    t.start()
    t.join(options.identity_timeout + 0.5)
    if not result:
        result.update({k: v for k, v in options.identity.items() if v not in (None, "")})
    return result


def run_id_for(flag: str | None, ident: dict, launch: str | None) -> str:
    """``--run-id``, else TPUWATCH_RUN_ID, else TPU name + ``--launch`` (shared by every worker of
    that launch), else a fresh id for this worker alone."""
    explicit = flag or config.env_str(config.ENV_RUN_ID)
    if explicit:
        return explicit
    if launch:
        name = ident.get("tpu_name")
        return f"{name}-{launch}" if name else launch
    return uuid.uuid4().hex


def host_index_for(flag: int | None, ident: dict) -> int | None:
    if flag is not None:
        return flag
    env = config.env_int(config.ENV_HOST_INDEX)
    if env is not None:
        return env
    worker = ident.get("worker")
    return worker if isinstance(worker, int) else None


def start_sources(mon, options: SourceOptions, ident: dict) -> Running:
    """Start the background sources for a running child; each says once if it cannot work."""
    running = Running()
    try:
        if options.tpu_metrics:
            from tpuwatch.sources.tpu_metrics import TpuMetricsSource

            address = f"{options.metrics_host}:{options.metrics_port}"
            running.threads.append(TpuMetricsSource(mon, address, every=options.metrics_every).start())
        if options.prometheus_port > 0:
            from tpuwatch.sources.local_prometheus import LocalPrometheusSource, ports_from_env

            ports = ports_from_env(options.prometheus_port)
            running.threads.append(LocalPrometheusSource(mon, ports, every=options.prometheus_every).start())
        from tpuwatch.sources.node_state import NodeStateSource, node_path

        node = node_path(ident, options.tpu_node)
        if node and options.node_poll > 0:
            running.threads.append(
                NodeStateSource(mon, node, every=options.node_poll, endpoint=options.tpu_api_endpoint).start()
            )
        elif options.tpu_api_endpoint:
            log.warn_once(
                "node-state",
                "tpu node state: --tpu-api-endpoint given but the node is unknown "
                "(need project, zone and TPU name from the metadata server or TPUWATCH_TPU_NODE)",
            )
        from tpuwatch.sources.stall import StallWatcher

        running.threads.append(
            StallWatcher(mon, mon.spool_dir, floor=options.stall_floor, factor=options.stall_factor).start()
        )
    except Exception as exc:
        log.warn_once("sources", f"sources: {type(exc).__name__}: {exc}")
    return running


def finish(mon, running: Running, options: SourceOptions, logfile: Path) -> None:
    """Stop the sources and archive the log; bounded in time, never raises."""
    for source in running.threads:
        try:
            source.stop()  # each within its own bound: 1 s, the node state 5 s (a last look)
        except Exception:
            pass
    if not options.archive:
        return
    from tpuwatch.sources.archive import upload_log

    done: dict = {}

    def upload() -> None:
        try:
            done["url"] = upload_log(
                logfile, options.archive, job=mon.job, run_id=mon.run_id, host=mon.host_index
            )
        except Exception as exc:
            done["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}"

    t = threading.Thread(target=upload, name="tpuwatch-archive", daemon=True)
    t.start()
    t.join(150)
    if "url" in done:
        mon.event(wire.Kind.ARCHIVE, done["url"], url=done["url"], bytes=_size(logfile))
    else:
        why = done.get("error", "timed out")
        log.warn(f"archive: could not upload {logfile} to {options.archive} ({why}); it stays in the spool")
        mon.event(wire.Kind.ARCHIVE, "", url=None, error=why, local=str(logfile))


def _size(path: Path) -> int | None:
    try:
        return path.stat().st_size
    except OSError:
        return None
