"""The full log to Cloud Storage on exit: ``gs://bucket/prefix/<job>/<run_id>/host-<N>.log``.

``google-cloud-storage`` is imported only here, and only when ``--archive`` is given.
``STORAGE_EMULATOR_HOST`` points the library at an emulator, as it documents. Example::

    url = upload_log(Path("output.log"), "gs://my-logs/tpu", job="bert", run_id="r1", host=0)
"""

from __future__ import annotations

import re
from pathlib import Path

_GS = re.compile(r"^gs://([a-z0-9][a-z0-9._-]{1,220}[a-z0-9])(?:/(.*))?$")


def parse_gs_url(url: str) -> tuple[str, str]:
    """``gs://bucket/prefix`` into ``(bucket, prefix)``; ValueError with the reason otherwise."""
    m = _GS.match(url.strip())
    if not m:
        raise ValueError(f"{url!r} is not a gs://bucket/prefix URL")
    return m.group(1), (m.group(2) or "").strip("/")


def object_name(prefix: str, job: str, run_id: str, host: int) -> str:
    safe_job = re.sub(r"[^A-Za-z0-9._-]+", "_", job) or "job"
    safe_run = re.sub(r"[^A-Za-z0-9._-]+", "_", run_id) or "run"
    parts = [p for p in (prefix, safe_job, safe_run, f"host-{host}.log") if p]
    return "/".join(parts)


def upload_log(path: Path, url: str, *, job: str, run_id: str, host: int, timeout: float = 120.0) -> str:
    """Upload ``path`` and return the ``gs://`` URL of the object written."""
    bucket_name, prefix = parse_gs_url(url)
    from google.cloud import storage

    client = storage.Client()
    name = object_name(prefix, job, run_id, host)
    blob = client.bucket(bucket_name).blob(name)
    blob.upload_from_filename(str(path), content_type="text/plain; charset=utf-8", timeout=timeout)
    return f"gs://{bucket_name}/{name}"
