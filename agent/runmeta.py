"""What a run leaves beside its batches: the spool's meta.json (which run and token its leftovers
belong to) and the run attributes the sidecar passes down to its child."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from tpuwatch import config, log


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
