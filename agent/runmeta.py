"""What a run leaves beside its batches: the spool's meta.json (which run and token its leftovers
belong to), the run attributes the sidecar passes down to its child, and the pace file through
which the sidecar tells its child how often to write a batch."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path

from tpuwatch import config, log, provenance, wire
from tpuwatch.fit import fit_json, fit_name
from tpuwatch.sender import jittered  # the agent's own generator, never the global one


def write_meta(spool_dir: Path, run_id: str, job: str, host: int, server: str, token: str | None) -> None:
    meta = spool_dir / "meta.json"
    info = {"run_id": run_id, "job": job, "host": host, "server": server}
    if token:  # which token may deliver these leftovers (a later run's, if the same)
        info["token_sha256"] = hashlib.sha256(token.encode()).hexdigest()[:16]
    tmp = meta.with_suffix(".tmp")
    try:
        if not meta.exists():
            tmp.write_text(json.dumps(info))
            os.replace(tmp, meta)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        log.warn_once("meta", f"cannot write {meta} ({exc.strerror or exc}); the batches carry the same")


def run_attrs(under_sidecar: bool, attrs: dict | None, name: str | None, peak_flops: float | None) -> dict:
    """The ``run.attrs`` of a Monitor's batches: where it runs, its code, its name and peak FLOP/s."""
    out = {"hostname": config.hostname(), "pid": os.getpid(), "code_version": config.code_version()}
    if not under_sidecar and not (attrs or {}).get("sidecar"):  # the sidecar gathers its own
        out.update(provenance.gather([sys.argv[0]] if sys.argv and sys.argv[0] else None))
    out.update({**sidecar_attrs(), **(attrs or {})})
    if name:
        out[wire.Attr.RUN_NAME] = fit_name(name, 200)
    peak = peak_flops if peak_flops is not None else config.env_float(config.ENV_PEAK_FLOPS)
    if peak:
        out[wire.Attr.PEAK_FLOPS] = float(peak)
    return fit_json(out, wire.MAX_ATTRS_BYTES)


def sidecar_attrs() -> dict:
    """Run attributes the sidecar learned (the TPU identity): whichever process's batch reaches
    the server first creates the host row, so the child carries them too."""
    raw = os.environ.get(config.ENV_ATTRS)
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


PACE_FILE = "pace"


class PaceFile:
    """The interval between batches that the sender of a spool folder keeps, shared through a small
    file in the folder: the sidecar writes it, its child reads it.

    Why: under ``tpuwatch agent run`` the child only writes the spool; if it closed a segment
    every half second, its sidecar would send two requests a second per host, and a slice would
    send thousands, whatever pace the server asked for. With the file, the child closes a segment
    (one request) per interval the server asked of its host (app/ops/pacing.py).

    Writing happens only on a change of 5 % or more; reading at most every ``every`` seconds. Any
    error leaves the last value (the default until one is read): pacing must never reach training.
    """

    def __init__(self, spool_dir: Path, default: float = 1.0, every: float = 2.0) -> None:
        self.path = Path(spool_dir) / PACE_FILE
        self.seconds = default
        self.every = every
        self._read_at = float("-inf")

    def publish(self, seconds: float) -> None:
        if abs(seconds - self.seconds) < 0.05 * self.seconds and self._read_at > float("-inf"):
            return
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(f"{seconds:.3f}")
            os.replace(tmp, self.path)
        except OSError:
            return  # a full disk: the child keeps the last pace it read
        self.seconds, self._read_at = seconds, time.monotonic()

    def current(self) -> float:
        now = time.monotonic()
        if now - self._read_at >= self.every:
            self._read_at = now
            try:
                value = float(self.path.read_text())
            except (OSError, ValueError):
                return self.seconds
            if 0.05 <= value <= 600:
                self.seconds = value
        return self.seconds

    def sender_behind(self) -> bool:
        """True while a closed segment waits in the folder: the sidecar's sender has not had it
        stored yet (its answer is awaited, or the server pushes back)."""
        try:
            return any(self.path.parent.glob("*.seg"))
        except OSError:
            return False

    def next_wait(self) -> float:
        """The interval, jittered by +/- 25 % so that the hosts of a slice drift apart."""
        return jittered(self.current(), 0.25)
