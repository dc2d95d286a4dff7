"""What tells runs of one job apart: the launch's name, the git commit (and whether its work tree
had changes) and the digest of the config files beside the script, as the agent sends them in
the run's attrs (agent/provenance.py). Kept on the job (``jobs.attrs["label"]``) when its first
batch creates it, so no column and no migration is needed."""

from __future__ import annotations

from typing import Any

from tpuwatch.server.jobs.schemas import RunLabel
from tpuwatch.wire import Attr

KEY = "label"


def label_attrs(run_attrs: dict[str, Any] | None) -> dict[str, Any]:
    """The label part of a batch's run attrs, checked and bounded; ``{}`` when there is none.

    >>> label_attrs({"run_name": "lr 3e-4", "commit": "abc123", "dirty": 1, "hostname": "h"})
    {'name': 'lr 3e-4', 'commit': 'abc123', 'dirty': True}
    """
    a = run_attrs or {}
    out: dict[str, Any] = {}
    for key, field, limit in (
        (Attr.RUN_NAME, "name", 200),
        (Attr.COMMIT, "commit", 40),
        (Attr.CONFIG_DIGEST, "config_digest", 64),
    ):
        value = a.get(key)
        if isinstance(value, str) and value.strip():
            out[field] = value.strip()[:limit]
    if Attr.DIRTY in a and Attr.COMMIT in a:
        out["dirty"] = bool(a[Attr.DIRTY])
    files = a.get(Attr.CONFIG_FILES)
    if isinstance(files, list) and "config_digest" in out:
        out["config_files"] = [str(f)[:200] for f in files[:20]]
    return out


def run_label(job_attrs: dict[str, Any] | None) -> RunLabel | None:
    stored = (job_attrs or {}).get(KEY)
    return RunLabel(**stored) if isinstance(stored, dict) and stored else None
