"""TPU node state from the Cloud TPU API: state, health and symptoms as ``node_state`` events.

Polls ``google.cloud.tpu_v2.TpuClient.get_node`` every ``every`` seconds (30 to 60 is sensible: the
API is rate-limited per project) and records an event when what it says changes. A state that
explains a dying job (PREEMPTED, REPAIRING, TERMINATED, an unhealthy health value) carries
``likely_cause`` so the server can name it. Stopping asks once more, so the state at the job's
end is recorded even when the job dies between two polls. ``google-cloud-tpu`` is imported only
here, in the source's own thread. Example::

    NodeStateSource(mon, "projects/p/locations/us-central2-b/nodes/my-v4", every=45).start()
"""

from __future__ import annotations

import threading

from tpuwatch import log, wire

# Node.State names that mean the VM is, or is about to be, gone, and what to call it.
BAD_STATES = {
    "PREEMPTED": "preemption",
    "TERMINATED": "terminated",
    "REPAIRING": "repair",
    "STOPPING": "stopped",
    "STOPPED": "stopped",
    "DELETING": "deleted",
    "RESTARTING": "restart",
    "REIMAGING": "restart",
}
BAD_HEALTH = {"TIMEOUT", "UNHEALTHY_TENSORFLOW", "UNHEALTHY_MAINTENANCE"}


def node_path(ident: dict, explicit: str | None = None) -> str | None:
    """``projects/<p>/locations/<zone>/nodes/<name>`` from the identity, or None when unknown."""
    if explicit:
        return explicit
    project, zone, name = ident.get("project"), ident.get("zone"), ident.get("tpu_name")
    if project and zone and name:
        return f"projects/{project}/locations/{zone}/nodes/{name}"
    return None


def describe(node) -> dict:
    """The parts of a ``tpu_v2.Node`` that matter for a job, as plain JSON."""
    state = _enum_name(node.state)
    health = _enum_name(node.health)
    symptoms = [
        {
            "type": _enum_name(s.symptom_type),
            "details": str(s.details)[:500],
            "worker_id": str(s.worker_id),
        }
        for s in list(node.symptoms)[:20]
    ]
    data = {"state": state, "health": health, "symptoms": symptoms}
    cause = BAD_STATES.get(state)
    if cause is None and health in BAD_HEALTH:
        cause = "unhealthy"
    if cause is None and any(s["type"] in ("HBM_OUT_OF_MEMORY", "OUT_OF_MEMORY") for s in symptoms):
        cause = "out_of_memory"
    if cause:
        data["likely_cause"] = cause
    return data


def _enum_name(value) -> str:
    return getattr(value, "name", None) or str(value)


class NodeStateSource:
    """Background poller of one TPU node; says once why it cannot poll and then stops."""

    name = "tpu node state (Cloud TPU API)"

    def __init__(
        self,
        monitor,
        node: str,
        *,
        every: float = 45.0,
        endpoint: str | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.monitor = monitor
        self.node = node
        self.every = every
        self.endpoint = endpoint
        self.timeout = timeout
        self.polls = 0
        self._last = None
        self._client = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tpuwatch-node-state", daemon=True)

    def start(self) -> NodeStateSource:
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Stop polling after one last look: the node's state when the job ended is the one that
        explains the end (a preemption between two polls, say). Waits at most ``timeout``."""
        self._stop.set()
        self._thread.join(timeout)

    def _make_client(self):
        from google.cloud import tpu_v2

        if self.endpoint:
            # An explicit endpoint is a test double or a private gateway: no Google credentials.
            from google.auth.credentials import AnonymousCredentials

            return tpu_v2.TpuClient(
                transport="rest",
                client_options={"api_endpoint": self.endpoint},
                credentials=AnonymousCredentials(),
            )
        import google.auth

        credentials, _ = google.auth.default(scopes=["https://www.googleapis.com/auth/cloud-platform"])
        return tpu_v2.TpuClient(transport="rest", credentials=credentials)

    def poll(self) -> dict | None:
        """Ask once; record an event when state, health or symptoms changed. Returns the data."""
        if self._client is None:
            self._client = self._make_client()
        node = self._client.get_node(name=self.node, timeout=self.timeout, retry=None)
        data = describe(node)
        self.polls += 1
        key = (data["state"], data["health"], tuple(s["type"] for s in data["symptoms"]))
        if key != self._last:
            self._last = key
            msg = f"TPU node {data['state']}, health {data['health']}"
            if data["symptoms"]:
                msg += ", symptoms " + ", ".join(s["type"] for s in data["symptoms"])
            self.monitor.event(wire.Kind.NODE_STATE, msg, node=self.node, **data)
        return data

    def _run(self) -> None:
        failures = 0
        while True:
            # A poll that began after stop() is the last look; one already under way when stop()
            # came counts as the last look too.
            last = self._stop.is_set()
            try:
                self.poll()
                failures = 0
            except Exception as exc:
                failures += 1
                why = _why(exc)
                log.warn_once(
                    "node-state",
                    f"{self.name}: cannot read {self.node} ({why}); no node state events; "
                    "training is not affected",
                )
                if _permanent(exc):
                    return
            if last or self._stop.is_set():
                return
            # Slow down while it keeps failing; a node that comes back is still noticed.
            self._stop.wait(self.every * min(4, 1 + failures))


def _why(exc: Exception) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text[:200]}" if text else type(exc).__name__


def _permanent(exc: Exception) -> bool:
    """No library, no credentials, no permission, no such node: asking again cannot help."""
    if isinstance(exc, ImportError):
        return True
    name = type(exc).__name__
    return name in ("DefaultCredentialsError", "PermissionDenied", "Unauthenticated", "NotFound")
