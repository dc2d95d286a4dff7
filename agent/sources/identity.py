"""Who this worker is: TPU name, zone, accelerator type and worker number.

First the GCE metadata server (``Metadata-Flavor: Google``; ``GCE_METADATA_HOST`` moves it, as in
Google's own libraries), then the TPU VM hostname pattern ``t1v-n-<hex>-w-<N>``, then environment
variables; explicit flags override all of them. Asked once, with a short deadline: off Google Cloud
the lookup fails in milliseconds and the agent goes on. Example::

    ident = resolve(overrides={"worker": 3})
    ident["tpu_name"], ident["zone"], ident["worker"]
"""

from __future__ import annotations

import os
import re
import socket
import time
import urllib.error
import urllib.request

from tpuwatch import log

DEFAULT_HOST = "metadata.google.internal"
HOSTNAME_RE = re.compile(r"^t1v-n-([0-9a-f]+)-w-(\d+)$")
MAX_BODY = 64 << 10

# (field, metadata path) asked in this order; ``tpu-env`` carries most of what a TPU VM knows.
PATHS = (
    ("tpu_env", "instance/attributes/tpu-env"),
    ("accelerator_type", "instance/attributes/accelerator-type"),
    ("worker", "instance/attributes/agent-worker-number"),
    ("instance", "instance/name"),
    ("zone", "instance/zone"),
    ("project", "project/project-id"),
)

# tpu-env keys that become identity fields.
TPU_ENV_FIELDS = {
    "NODE_ID": "tpu_name",
    "ZONE": "zone",
    "WORKER_ID": "worker",
    "TOPOLOGY": "topology",
    "ACCELERATOR_TYPE": "accelerator_type",
    "PREEMPTIBLE": "preemptible",
    "CONSUMER_PROJECT_ID": "project",
    "TYPE": "tpu_type",
}

ENV_FIELDS = (
    ("TPU_NAME", "tpu_name"),
    ("TPU_WORKER_ID", "worker"),
    ("TPU_ACCELERATOR_TYPE", "accelerator_type"),
    ("TPU_ZONE", "zone"),
    ("GOOGLE_CLOUD_PROJECT", "project"),
)


def metadata_base() -> str:
    host = os.environ.get("GCE_METADATA_HOST") or DEFAULT_HOST
    if "://" not in host:
        host = "http://" + host
    return host.rstrip("/") + "/computeMetadata/v1/"


def parse_tpu_env(text: str) -> dict[str, str]:
    """``KEY: 'value'`` lines (the metadata attribute is YAML-shaped) into a dict."""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        key = key.strip()
        if not sep or not re.fullmatch(r"[A-Z][A-Z0-9_]*", key):
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        out[key] = value
    return out


class _Unreachable(Exception):
    pass


def _get(base: str, path: str, deadline: float) -> str | None:
    """One metadata value; None when this VM does not have it; _Unreachable when nobody answers."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise _Unreachable("no time left")
    req = urllib.request.Request(base + path, headers={"Metadata-Flavor": "Google"})
    try:
        with urllib.request.urlopen(req, timeout=left) as resp:
            # Anything else on that name (a proxy's page) is not the metadata server.
            if resp.headers.get("Metadata-Flavor") != "Google":
                raise _Unreachable("the answer lacks 'Metadata-Flavor: Google'")
            body = resp.read(MAX_BODY + 1)
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise _Unreachable(f"HTTP {exc.code}") from exc
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise _Unreachable(f"{type(reason).__name__}: {reason}") from exc
    if len(body) > MAX_BODY:
        raise _Unreachable("answer too large")
    try:
        return body.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        raise _Unreachable("answer is not text") from exc


def from_metadata(timeout: float = 1.0) -> tuple[dict, str | None]:
    """Fields from the metadata server and, when it could not be asked, why."""
    base = metadata_base()
    deadline = time.monotonic() + timeout
    found: dict = {}
    for field, path in PATHS:
        try:
            value = _get(base, path, deadline)
        except _Unreachable as exc:
            return _clean(found), f"{base}: {exc}"
        if value is None:
            continue
        if field == "tpu_env":
            env = parse_tpu_env(value)
            for key, name in TPU_ENV_FIELDS.items():
                if env.get(key):
                    found.setdefault(name, env[key])
        else:
            found[field] = value
    return _clean(found), None


def from_hostname(hostname: str | None = None) -> dict:
    m = HOSTNAME_RE.match(hostname or socket.gethostname())
    return {"worker": int(m.group(2)), "tpu_hash": m.group(1)} if m else {}


def from_env(environ=None) -> dict:
    environ = os.environ if environ is None else environ
    return _clean({name: environ[var] for var, name in ENV_FIELDS if environ.get(var)})


def resolve(overrides: dict | None = None, timeout: float = 1.0, quiet: bool = False) -> dict:
    """Identity from every source, best first; ``source`` says where the worker number came from."""
    meta, problem = from_metadata(timeout)
    ident: dict = {}
    sources = (
        ("flags", _clean(overrides or {})),
        ("metadata", meta),
        ("env", from_env()),
        ("hostname", from_hostname()),
    )
    for origin, values in sources:
        for key, value in values.items():
            if key not in ident and value not in (None, ""):
                ident[key] = value
                if key == "worker":
                    ident["source"] = origin
    # An unresolvable name only means "not on Google Cloud": nothing worth a line on stderr.
    if problem and not quiet and "gaierror" not in problem:
        log.warn_once("identity", f"identity: GCE metadata server not reachable ({problem}); using fallbacks")
    if problem:
        ident["metadata_error"] = problem[:200]
    return ident


def _clean(values: dict) -> dict:
    out = {}
    for key, value in values.items():
        if value in (None, ""):
            continue
        if key == "zone" and isinstance(value, str):
            value = value.rsplit("/", 1)[-1]  # instance/zone is projects/<number>/zones/<zone>
        if key == "worker":
            try:
                value = int(value)
            except (TypeError, ValueError):
                continue
        if key == "preemptible" and isinstance(value, str):
            value = value.lower() in ("true", "1", "yes")
        out[key] = value
    return out
