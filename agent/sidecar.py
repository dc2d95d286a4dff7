"""`tpuwatch agent run -- CMD`: run a training command as a child and watch it.

The child's output passes through unchanged (byte for byte, as it comes) while a copy goes to the
spool folder and through the traceback assembler. The child's own ``tpuwatch.init()`` writes into the
same spool folder, so its steps and the sidecar's events land on one job; the sidecar's sender
delivers both. The sidecar exits with the child's exit code and forwards Ctrl-C and SIGTERM.

Whatever happens to the disk or the server, the child is never held up (its pipes are always
drained) and its exit code always passes through. What earlier runs on this machine left unsent
(a server that was down when they ended) is delivered in the background by the next run.
"""

from __future__ import annotations

import errno
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from tpuwatch import config, log, provenance, retracing, wire
from tpuwatch.monitor import Monitor
from tpuwatch.sources import runner as sources
from tpuwatch.sources.runner import SourceOptions
from tpuwatch.tracebacks import TracebackAssembler

HANG_HINTS = ("HANG_DETECTED", "TPU Execute is taking a long time")
# Keras TerminateOnNaN prints this and stops fit() cleanly: exit 0, but the run diverged.
DIVERGED_LINE = "Invalid loss, terminating training"
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


class _Tee(threading.Thread):
    """Copies the child's stdout and stderr to ours, to the log file and to the assemblers.

    One thread reads both pipes (select), so lines keep the order the child wrote them in as far
    as the pipes allow, and the context before a traceback holds both streams."""

    def __init__(self, child: subprocess.Popen, logfile: _LogCopy, mon: Monitor) -> None:
        super().__init__(name="tpuwatch-tee", daemon=True)
        self.mon, self.logfile = mon, logfile
        recent: deque = deque(maxlen=40)
        self.streams = {
            child.stdout.fileno(): _Stream("stdout", sys.stdout.buffer, TracebackAssembler(recent=recent)),
            child.stderr.fileno(): _Stream("stderr", sys.stderr.buffer, TracebackAssembler(recent=recent)),
        }

    def run(self) -> None:
        sel = selectors.DefaultSelector()
        for fd in self.streams:
            sel.register(fd, selectors.EVENT_READ)
        while sel.get_map():
            ready = sel.select(timeout=0.5)
            if not ready:  # quiet output: an exception printed before a hang still becomes an error
                for stream in self.streams.values():
                    for err in stream.assembler.idle():
                        self._report(stream, err)
            for key, _ in ready:
                stream = self.streams[key.fd]
                try:
                    chunk = os.read(key.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    sel.unregister(key.fd)
                    self._end(stream)
                    continue
                try:
                    stream.dst.write(chunk)
                    stream.dst.flush()
                except (OSError, ValueError):
                    pass  # our own stdout went away; keep draining the child so it never blocks
                self.logfile.write(chunk)
                self._lines(stream, chunk)
        sel.close()

    def _lines(self, stream: _Stream, chunk: bytes) -> None:
        data = stream.partial + chunk
        *lines, stream.partial = data.split(b"\n")
        if len(stream.partial) > 1 << 20:  # one endless line (a progress bar): analyse and move on
            lines.append(stream.partial)
            stream.partial = b""
        for raw in lines:
            self._line(stream, raw)

    def _end(self, stream: _Stream) -> None:
        if stream.partial:
            self._line(stream, stream.partial)
            stream.partial = b""
        for err in stream.assembler.flush():
            self._report(stream, err)

    def _line(self, stream: _Stream, raw: bytes) -> None:
        line = raw.decode("utf-8", "replace")
        if "\r" in line:  # progress bars redraw with CR: only the last state matters
            line = line.rstrip("\r").rsplit("\r", 1)[-1]
        number = self.mon.lines.push(line, stream.name)  # the live log
        if line.startswith(log.PREFIX):  # the child's own tpuwatch notices: kept in the log, never a hint
            for err in stream.assembler.feed(line, number):
                self._report(stream, err)
            return
        for hint in HANG_HINTS:
            if hint in line:
                self.mon.event(wire.Kind.HANG_HINT, line[:2000], stream=stream.name)
                break
        if retracing.MARK in line:  # a tf.function traced again and again: a compile event
            retracing.record(self.mon, line)
        if DIVERGED_LINE in line:
            self.mon.event(wire.Kind.ERROR, line[:2000], source="log", line=number, first_line=number)
        for err in stream.assembler.feed(line, number):
            self._report(stream, err)

    def _report(self, stream: _Stream, err) -> None:
        self.mon.event(
            wire.Kind.ERROR,
            err.text,
            exception=err.exception[:500],
            context=err.context,
            stream=stream.name,
            source="traceback",
            # Where it begins and ends in this host's live log: the line numbers the job page shows.
            line=err.last_line if err.last_line is not None else self.mon.lines.seen,
            first_line=err.first_line,
        )


class _LogCopy:
    """The copy of the child's output in the spool folder. It stops (said once) when the disk is
    nearly full: the last quarter of the disk, at most ``HEADROOM``, is kept for the job's steps,
    events and exit code. The output itself keeps passing through; the child never waits on it."""

    HEADROOM = 256 << 20

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lost = 0
        try:
            self._fh = open(path, "ab", buffering=0)  # noqa: SIM115 - unbuffered: no failing close
        except OSError as exc:
            self._fh = None
            log.warn(f"cannot keep a copy of the output in {path}: {exc.strerror or exc}")

    def write(self, chunk: bytes) -> None:
        if self._fh is None:
            self.lost += len(chunk)
            return
        try:
            fs = os.statvfs(self.path.parent)
            if fs.f_bavail * fs.f_frsize < min(self.HEADROOM, fs.f_blocks * fs.f_frsize // 4) + len(chunk):
                raise OSError(errno.ENOSPC, "the disk is nearly full; the rest is kept for the job's data")
            self._fh.write(chunk)
        except OSError as exc:
            self.lost += len(chunk)
            self.close()
            why = exc.strerror or exc
            log.warn(f"stopped copying the output to {self.path} ({why}); it still passes through")

    def close(self) -> None:
        if self._fh is not None:
            try:
                self._fh.close()
            except OSError:
                pass
            self._fh = None


@dataclass
class _Stream:
    name: str
    dst: object
    assembler: TracebackAssembler
    partial: bytes = b""


def run(
    command: list[str],
    *,
    server: str | None,
    token: str | None,
    job: str | None,
    host_index: int | None,
    run_id: str | None,
    spool_dir: str | None,
    heartbeat: float = 10.0,
    options: SourceOptions | None = None,
    group: str | None = None,
    peak_flops: float | None = None,
    name: str | None = None,
) -> int:
    """Run ``command`` under watch; returns the exit status to exit with."""
    options = options or SourceOptions()
    ident = sources.identify(options)
    run_id = sources.run_id_for(run_id, ident, options.launch)
    host_index = sources.host_index_for(host_index, ident)
    job = job or config.env_str(config.ENV_JOB) or Path(command[0]).name
    label = provenance.gather(command)  # commit and config digest: which code and config this is
    if name:
        label[wire.Attr.RUN_NAME] = name[:200]
    mon = Monitor(
        job,
        server=server,
        token=token,
        run_id=run_id,
        host_index=host_index,
        spool_dir=spool_dir,
        send=True,
        attrs={"sidecar": True, **label, **({"identity": ident} if ident else {})},
        group=group,
        peak_flops=peak_flops,
        name=name,
    )
    env = dict(os.environ)
    env.update(
        {
            config.ENV_SIDECAR: str(mon.spool_dir),
            config.ENV_RUN_ID: run_id,
            config.ENV_JOB: job,
            config.ENV_HOST_INDEX: str(mon.host_index),
            config.ENV_ATTRS: json.dumps({**label, **({"identity": ident} if ident else {})}),
        }
    )
    if mon.group:
        env[config.ENV_GROUP] = mon.group
    if wire.Attr.PEAK_FLOPS in mon.attrs:
        env[config.ENV_PEAK_FLOPS] = repr(mon.attrs[wire.Attr.PEAK_FLOPS])
    env.setdefault("PYTHONUNBUFFERED", "1")  # the child's output is a pipe now; keep it live
    # Stamped with this process's own start: interpreter start-up is part of the job's startup.
    mon.event_at(
        process_started_at() or time.time(),
        wire.Kind.START,
        " ".join(command),
        argv=command[:50],
        sidecar_pid=os.getpid(),
    )
    try:
        child = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, process_group=0
        )
    except OSError as exc:
        print(f"tpuwatch: cannot start {command[0]!r}: {exc.strerror or exc}", file=sys.stderr)
        mon.event(wire.Kind.ERROR, f"cannot start {command[0]!r}: {exc}", source="sidecar")
        mon.event(wire.Kind.EXIT, "", code=127, signal=None)
        mon.close()
        return 127
    mon.event(wire.Kind.CHILD, "", pid=child.pid)
    if ident:
        mon.event(wire.Kind.IDENTITY, ident.get("tpu_name") or "", **ident)
    running = sources.start_sources(mon, options, ident)

    def forward(signum, _frame):
        try:
            child.send_signal(signum)
        except ProcessLookupError:
            pass

    previous = {s: signal.signal(s, forward) for s in FORWARDED}
    logfile = _LogCopy(mon.spool_dir / "output.log")
    tee = _Tee(child, logfile, mon)
    tee.start()
    stop_beats = threading.Event()
    beats = threading.Thread(target=_heartbeats, args=(mon, stop_beats, heartbeat), daemon=True)
    beats.start()
    leftovers = _deliver_leftovers(mon)
    try:
        code = _wait(child)
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
    try:
        _finish(mon, code, tee, stop_beats, logfile, running, options, leftovers)
    except Exception as exc:  # nothing after the child's end may change its exit code
        log.warn(f"after the job ended: {type(exc).__name__}: {exc}")
    return 128 - code if code < 0 else code


def _finish(mon, code, tee, stop_beats, logfile, running, options, leftovers) -> None:
    tee.join(10)
    stop_beats.set()
    logfile.close()
    sig = _signal_name(-code) if code < 0 else None
    mon.event(wire.Kind.EXIT, sig or "", code=None if sig else code, signal=sig)
    sources.finish(mon, running, options, logfile.path)
    if leftovers is not None:
        leftovers.stop(timeout=2.0)
    mon.close(timeout=10.0)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:  # a real-time signal has no name
        return f"SIG{number}"


def _deliver_leftovers(mon: Monitor):
    """Send what earlier runs left in this machine's spool, in the background (never raises)."""
    if not mon.server:
        return None
    try:
        from tpuwatch.sync import LeftoverDelivery

        return LeftoverDelivery(mon.spool_dir.parent, mon.spool_dir, mon.server, mon.token).start()
    except Exception as exc:
        log.warn_once("leftovers", f"leftover spools: {type(exc).__name__}: {exc}")
        return None


def process_started_at(pid: str = "self") -> float | None:
    """Wall-clock start of a process from /proc (Linux), None elsewhere."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            ticks = int(f.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as f:  # btime in /proc/stat is whole seconds: too coarse
            boot = time.time() - float(f.read().split()[0])
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _wait(child: subprocess.Popen) -> int:
    """``child.wait()`` that keeps coming back to Python. A signal sent to our pid may be taken by
    any of our threads; Python then runs the handler only when the main thread next runs bytecode,
    and a main thread parked in waitpid() would not forward it until the child ended by itself."""
    while True:
        try:
            return child.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            continue


def _heartbeats(mon: Monitor, stop: threading.Event, every: float) -> None:
    while not stop.wait(every):
        try:
            mon.heartbeat()
        except Exception as exc:
            log.warn_once("heartbeat", f"heartbeat failed: {type(exc).__name__}: {exc}")
