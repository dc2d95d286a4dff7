"""The wire vocabulary: what an agent sends and the server reads, named once for both sides.

Standard library only: the agent imports it on the TPU VM, the server's ingest schema, pages,
alerts and ``/metrics`` import the same names. A batch (``POST /api/v1/ingest``, JSON, gzip
allowed) is one object; its rows are arrays, not objects, so 20,000 steps stay small::

    {"v": 1, "stream": "<hex>", "seq": 0, "part": "",
     "run": {"run_id": "...", "job": "bert", "host": 0, "group": "bert-v5e", "attrs": {...}},
     "sent_at": 1700000000.0,
     "steps":   [[step, end_ts, duration_s, input_wait_s], ...],
     "events":  [[ts, kind, message, data], ...],
     "metrics": [[ts, name, chip, value], [ts, name, chip, value, step], ...],
     "logs":    [[ts, line_no, stream, text], ...],   (only when the sidecar streams output)
     "dropped": 0}

``run.group`` names the training run this job is an attempt of (a relaunch that resumes from a
checkpoint sends the same group); without it the server groups by project and job name.
``(stream, seq, part)`` identifies a batch: redelivery stores nothing new. ``part`` is set when the
agent splits a batch the server refused as too large (413): "0", "1", then "00", "01", ...
A request may carry several consecutive batches of a stream merged (agent/batching.py), under the
first one's ``seq``, with ``"records": [[seq, steps, events, metrics, logs], ...]``, each batch's
key and row counts in order: the server stores the rows of each batch it did not have before.
"""

from __future__ import annotations

VERSION = 1

# Bounds on a batch's free-form fields. The server refuses a batch past them (422); the agent keeps
# its own events within them, so one oversized event never costs the steps it travels with.
MAX_MESSAGE_CHARS = 256 * 1024  # an event's message (the server's TPUWATCH_MAX_EVENT_MESSAGE_CHARS)
MAX_DATA_BYTES = 64 * 1024  # an event's data, as compact JSON
MAX_ATTRS_BYTES = 16 * 1024  # a run's attrs, as compact JSON
MAX_LOG_LINE_CHARS = 4096  # one line of the live log (the archived log keeps it whole)
MAX_BATCH_LINES = 5000  # log lines in one batch
SEND_INTERVAL_S = 1.0  # an agent's own interval between batches, before any server asks for more
MAX_DURATION_S = 7 * 86400.0  # a step's duration or input wait: a week is already no step
# Times are UNIX seconds; the server accepts those in a window around its own clock (a setting),
# and never any outside 2000-01-01 .. 2100-01-01.
MIN_TIME = 946_684_800.0
MAX_TIME = 4_102_444_800.0

# The positions of each row's fields.
STEP_FIELDS = ("step", "ts", "duration", "input_wait")
EVENT_FIELDS = ("ts", "kind", "message", "data")
METRIC_FIELDS = ("ts", "name", "chip", "value", "step")  # step: optional (training metrics)


class Kind:
    """Event kinds. The server stores any kind (an older server keeps a newer agent's events)."""

    START = "start"  # the sidecar started the command: data {"argv", "pid", ...}
    EXIT = "exit"  # the process ended: data {"code", "signal"}
    ERROR = "error"  # a traceback or fatal log lines, assembled into one message
    CHILD = "child"  # the sidecar's child process: data {"pid"}
    IDENTITY = "identity"  # the TPU VM's identity from the metadata server
    PHASE = "phase"  # a long phase without steps: data {"name", "state": "begin" | "end"}
    CHECKPOINT = "checkpoint"  # a checkpoint was saved: data {"step", "path", "duration", "blocking"}
    RESTORE = "restore"  # training resumed from a checkpoint: data {"step", "path", "duration"}
    EPOCH = "epoch"  # a Keras epoch ended: data {"epoch", "logs"}
    # batch size, replicas, steps per execution, layer widths; "flops_per_step" (model FLOPs of one
    # training step of the whole job) and "peak_flops" (FLOP/s of this host's chips) for MFU
    MODEL_INFO = "model_info"
    NODE_STATE = "node_state"  # the Cloud TPU API's view of the node: data {"state", "health", ...}
    HANG_HINT = "hang_hint"  # a log line that says the device is hung (HANG_DETECTED, ...)
    STACKS = "stacks"  # Python stacks taken when the job stopped making progress
    ARCHIVE = "archive"  # where the full log went: data {"url"}
    # One sampling round of libtpu's runtime metrics, packed (agent/sources/device_round.py):
    # data {"c": [chip, ...], "s": {gauge: value | [value per chip of "c"]},
    #       "d": {distribution: [DEVICE_STATS...] | [[DEVICE_STATS...] per chip of "c"]}}
    DEVICE = "device"
    # The TPU cores' state (TPU-Z) read once on the server's ask: data {"cores": [...], "ask": id}
    CORE_STATE = "core_state"
    # a compilation: data {"function", "framework", "duration", "trace_s", "lower_s", "compile_s",
    # "cache": "hit" | "miss", "step"}; a TF retracing warning: {"function", "framework", "retraces"}
    COMPILE = "compile"


# A distribution's statistics in a ``device`` round, in this order (None where unknown).
DEVICE_STATS = ("p50", "p90", "p99", "p999", "mean")


class Ask:
    """What the server may ask of an agent in the ``X-Tpuwatch-Ask`` header of an ingest answer:
    ``name=id`` pairs, comma separated; an agent acts once per id (agent/asks.py)."""

    HEADER = "X-Tpuwatch-Ask"
    CORE_STATE = "core_state"  # read the cores' state once and send it


# What the fields of each kind's ``data`` hold, for the fields the server reads; others are kept as
# sent. Every field may also be null. The server refuses a batch whose event has a field of the
# wrong type or out of range (422 naming the field), so a page never meets an exit code "oops".
MAX_STEP = 2**53 - 1  # a step number: exact as a JSON number in a browser, and in a float
INT32 = (-(2**31), 2**31 - 1)
# type names: "int32" (an exit code), "count" (0 .. MAX_STEP), "number" (finite), "seconds"
# (0 .. MAX_DURATION_S), "signal" (text of at most 32 characters), "name" (at most 200), "text",
# "bool", "list", "object"; a tuple lists the texts allowed.
EVENT_DATA: dict[str, dict[str, str | tuple[str, ...]]] = {
    "start": {"argv": "list", "pid": "count", "sidecar_pid": "count"},
    "exit": {"code": "int32", "signal": "signal"},
    "error": {"source": "name", "line": "count", "first_line": "count"},
    "child": {"pid": "count"},
    "phase": {"name": "name", "state": ("begin", "end")},
    "checkpoint": {"step": "count", "path": "text", "duration": "seconds", "blocking": "bool"},
    "restore": {"step": "count", "path": "text", "duration": "seconds"},
    "epoch": {"epoch": "count", "phase": ("begin", "end"), "step": "count", "logs": "object"},
    "model_info": {
        "total_steps": "count",
        "epochs": "count",
        "steps_per_epoch": "count",
        "flops_per_step": "number",
        "peak_flops": "number",
    },
    "node_state": {
        "node": "text",
        "state": "name",
        "health": "name",
        "likely_cause": "text",
        "symptoms": "list",
    },
    "hang_hint": {"stream": "name"},
    "stacks": {
        "pid": "count",
        "method": "name",
        "step": "count",
        "stalled_for": "number",
        "threshold": "number",
    },
    "archive": {"url": "text", "bytes": "count", "error": "text", "local": "text"},
    "compile": {
        "function": "name",
        "framework": "name",
        "duration": "seconds",
        "trace_s": "seconds",
        "lower_s": "seconds",
        "compile_s": "seconds",
        "cache": ("hit", "miss"),
        "step": "count",
        "retraces": "count",
    },
    # The packed values are checked where they are stored (app/device/store.py); a round that is
    # not as the agent packs it is kept as a plain event.
    "device": {"c": "list", "s": "object", "d": "object"},
    "core_state": {"cores": "list", "ask": "name", "error": "text"},
}


def data_problem(kind: str, data: dict) -> str | None:
    """What is wrong with an event's ``data`` for its kind, naming the field, or None.

    >>> data_problem("exit", {"code": 1, "signal": None}) is None
    True
    >>> data_problem("phase", {"state": "sideways"})
    "data.state of an event of kind 'phase' must be one of begin, end, not 'sideways'"
    """
    for name, want in EVENT_DATA.get(kind, {}).items():
        value = data.get(name)
        if value is None:
            continue
        need = _problem(want, value)
        if need:
            return f"data.{name} of an event of kind {kind!r} must be {need}, not {repr(value)[:40]}"
    return None


def _problem(want, value) -> str | None:
    integer = isinstance(value, int) and not isinstance(value, bool)
    number = (integer or isinstance(value, float)) and value == value and abs(value) != float("inf")
    if isinstance(want, tuple):
        return None if value in want else "one of " + ", ".join(want)
    if want == "int32":
        ok = integer and INT32[0] <= value <= INT32[1]
        return None if ok else f"an integer from {INT32[0]} to {INT32[1]}"
    if want == "count":
        return None if integer and 0 <= value <= MAX_STEP else f"an integer from 0 to {MAX_STEP}"
    if want == "number":
        return None if number else "a finite number"
    if want == "seconds":
        return None if number and 0 <= value <= MAX_DURATION_S else f"seconds from 0 to {MAX_DURATION_S:g}"
    if want in ("signal", "name", "text"):
        longest = {"signal": 32, "name": 200, "text": MAX_MESSAGE_CHARS}[want]
        fits = isinstance(value, str) and len(value) <= longest
        return None if fits else f"text of at most {longest} characters"
    kinds = {"bool": bool, "list": list, "object": dict}
    return None if isinstance(value, kinds[want]) else f"a JSON {want}"


class Phase:
    """Names of ``phase`` events the server's goodput and alerts understand (any other name is
    shown and allowed its time, and counted as other badput)."""

    CHECKPOINT = "checkpoint"  # a save that blocks training
    RESTORE = "restore"  # loading a checkpoint to resume
    EVAL = "eval"  # evaluation inside training (Keras validation)
    COMPILE = "compile"  # an explicit compilation (AOT ``lower().compile()``)

    SAVING = (CHECKPOINT, RESTORE)  # checkpoint badput


class Attr:
    """Run attributes (``run.attrs``) with a meaning beyond display."""

    PEAK_FLOPS = "peak_flops"  # FLOP/s of the chips this host drives, where the type is unknown
    # What tells runs of one job apart (shown beside the job's name; agent/provenance.py)
    RUN_NAME = "run_name"  # `tpuwatch agent run --name`, `tpuwatch.init(name=...)`
    COMMIT = "commit"  # short git sha of the training script's folder
    DIRTY = "dirty"  # that work tree had uncommitted changes to tracked files
    CONFIG_DIGEST = "config_digest"  # 12 hex of the config files beside the script
    CONFIG_FILES = "config_files"  # which files the digest covers
    LABEL = (RUN_NAME, COMMIT, DIRTY, CONFIG_DIGEST, CONFIG_FILES)


class MetricName:
    """Metric names the agent records and the server draws, alerts on and exports."""

    HBM_USED = "tpu.hbm.used_bytes"  # per chip
    HBM_TOTAL = "tpu.hbm.total_bytes"  # per chip
    HBM_PEAK = "tpu.hbm.peak_bytes"  # per chip, when the runtime reports it
    DUTY_CYCLE = "tpu.duty_cycle_pct"  # per chip, 0-100
    KERAS_PREFIX = "keras."  # keras.loss, keras.accuracy, ... as Keras logs them
    DEVICE_PREFIX = "tpu."  # device metrics; every other name is a training metric (loss, lr, ...)

    DEVICE = (HBM_USED, HBM_TOTAL, DUTY_CYCLE)

    # The input pipeline's own figures (Grain, from the local Prometheus endpoint): drawn on the
    # input-wait chart, never among the training metrics.
    PIPELINE_PREFIX = "pipeline."
    GRAIN_NEXT = "pipeline.grain.next_s"  # mean seconds per next() on the dataset
    GRAIN_SOURCE_READ = "pipeline.grain.source_read_s"  # mean seconds per read from the source
    GRAIN_BUFFER_READY = "pipeline.grain.buffer_ready"  # mean prefetch buffers ready
    GRAIN_READ_RATE = "pipeline.grain.read_bytes_per_s"  # bytes read from the data sources


def batch(
    *,
    stream: str,
    seq: int,
    run: dict,
    steps: list,
    events: list,
    metrics: list,
    dropped: int,
    sent_at: float,
    logs: list | None = None,
) -> dict:
    """One batch as the server expects it (see the module's docstring)."""
    out = {
        "v": VERSION,
        "stream": stream,
        "seq": seq,
        "run": run,
        "sent_at": sent_at,
        "steps": steps,
        "events": events,
        "metrics": metrics,
        "dropped": dropped,
    }
    if logs:
        out["logs"] = logs
    return out


def run_info(run_id: str, job: str, host: int, attrs: dict, group: str | None = None) -> dict:
    """The ``run`` object of a batch: which job and which of its hosts sent it."""
    run = {"run_id": run_id, "job": job, "host": host, "attrs": attrs}
    if group:
        run["group"] = group
    return run
