"""The job's surroundings: ``connection_loss`` and ``strategy_scope``.

Sources: the Cloud TPU troubleshooting guide (connecting to the TPU, local file system, session
creation, CrossShardOptimizer), the Keras-on-TPU InternalError notes (strategy scope), the notes on
InternalError while saving checkpoints, and what gRPC, TensorFlow's distributed runtime and JAX's
coordination service print.
"""

from __future__ import annotations

import re

from .base import Category, Subtype, first_group, sig

_PEER = re.compile(r"(ipv[46]:[\w.:\[\]%-]+|grpc://[\w.:-]+|\b\d{1,3}(?:\.\d{1,3}){3}:\d+)")
_TASK = re.compile(r"(/job:\w+/replica:\d+/task:\d+)")
_STATUS = re.compile(r"\b(UNAVAILABLE|DEADLINE_EXCEEDED|Unavailable|Deadline Exceeded|ABORTED)\b")


def _conn_facts(lines: list[str]) -> dict:
    facts: dict = {}
    for key, pattern in (("peer", _PEER), ("task", _TASK), ("status", _STATUS)):
        value = first_group([pattern], lines)
        if value:
            facts[key] = value.rstrip(":")
    return facts


def _conn_headline(facts: dict) -> str:
    return facts.get("peer") or facts.get("task", "")


CONNECTION_LOSS = Category(
    id="connection_loss",
    title="Lost contact with the TPU or a peer",
    explanation=(
        "The job lost the TPU: a gRPC connection to the TPU host, a worker or the coordination "
        "service failed or was closed, or the chips themselves are unavailable (held by another "
        "process, halted). Usual causes: a preempted or restarted TPU, a crashed peer process, a "
        "leftover process, or a wrong address."
    ),
    fixes=(
        "Check the TPU's state (gcloud compute tpus tpu-vm list / describe): it must be READY; a "
        "PREEMPTED or REPAIRING TPU explains the drop.",
        "If one worker crashed first, read that worker's log: the others only report the lost "
        "peer, the root error is on the host that died.",
        "Check that the TPU name, zone and project passed to the resolver are right and that every "
        "host can reach the others (firewall, same VPC).",
        "Restart the TPU (gcloud compute tpus tpu-vm stop, then start) if it stays unreachable, "
        "then rerun; large models may compile for minutes, so allow time before calling it hung.",
        "For preemptible / spot TPUs, checkpoint often and resume automatically from the last checkpoint.",
    ),
    signatures=(
        sig(r"Socket closed", 0.86, "Socket closed"),
        sig(
            r"[Ff]ailed to connect to all addresses|Failed to pick subchannel",
            0.86,
            "ailed to connect",
            "pick subchannel",
        ),
        sig(r"heartbeat timeout|heartbeat timed out|missed heartbeats?", 0.86, "heartbeat"),
        sig(
            r"Terminating process because the JAX distributed service detected fatal errors",
            0.86,
            "distributed service",
        ),
        sig(
            r"[Ff]ailed to connect to (?:the )?coordination service|coordination service.{0,60}"
            r"(?:ERROR|unavailable|UNAVAILABLE)|has been set to ERROR in coordination service",
            0.86,
            "coordination service",
        ),
        sig(r"lame workers found", 0.86, "lame workers"),
        sig(
            r"Failed to connect to the Tensorflow master|TPU worker may not be ready",
            0.84,
            "Tensorflow master",
            "may not be ready",
        ),
        sig(
            r"error was raised while a session was being created|error occurred when attempting "
            r"to close the session",
            0.85,
            "session was being created",
            "close the session",
        ),
        sig(
            r"Unable to find a context_id matching|the worker was restarted",
            0.82,
            "context_id",
            "worker was restarted",
        ),
        sig(r"\bpreempt(?:ed|ion)\b", 0.72, "preempt", subtype="preemption", ignorecase=True),
        sig(
            r"\bUNAVAILABLE\b|\bUnavailable: |UnavailableError|\"grpc_status\":14\b",
            0.8,
            "UNAVAILABLE",
            "Unavailable",
            "grpc_status",
        ),
        sig(
            r"\bDEADLINE_EXCEEDED\b|Deadline Exceeded|DeadlineExceededError|\"grpc_status\":4\b",
            0.74,
            "DEADLINE_EXCEEDED",
            "Deadline",
            "grpc_status",
        ),
        sig(
            r"Connection refused|Connection reset by peer|Stream removed",
            0.72,
            "Connection re",
            "Stream removed",
        ),
        sig(r"Session \w+ is not found", 0.7, "is not found"),
        # torch_xla's mesh service waiting for the master; TF's remote worker came back as another
        # process (its state is gone: a restart or a preemption).
        sig(
            r"WaitForConnected|mesh_service\.cc.{0,40}Check failed", 0.85, "WaitForConnected", "mesh_service"
        ),
        sig(
            r"expects a different device incarnation|[Yy]our worker (?:may have|has) restarted",
            0.86,
            "incarnation",
            "worker may have",
            "worker has",
        ),
        sig(r"Barrier timed out|barrier.{0,40}timed out", 0.72, "arrier"),
        # Another process holds the chips (a previous run still alive, a notebook kernel).
        sig(
            r"TPU is already in use by process|Unable to initialize backend 'tpu'.{0,120}already in use|"
            r"/dev/(?:accel|vfio/)\d+.{0,40}(?:[Dd]evice or resource busy|already in use)",
            0.92,
            "already in use",
            "ource busy",
            subtype="tpu_busy",
        ),
        # The TensorCore stopped mid-program (an on-device check failed, a kernel misbehaved, or the
        # chip is unhealthy): the TPU's runtime is gone until it is reset.
        sig(
            r"Core halted unexpectedly|[Aa]ccelerator device halted prematurely|halted unexpectedly at tag",
            0.9,
            "halted",
            subtype="tpu_halted",
        ),
    ),
    subtypes={
        "tpu_busy": Subtype(
            "The TPU is held by another process",
            (
                "Find the process that holds the chips (sudo lsof -w /dev/accel0, or the pid in the "
                "message) and stop it: an earlier run, a notebook kernel or a second script.",
                "Run one program per TPU VM at a time; a notebook keeps the TPU until its kernel is "
                "restarted.",
            ),
        ),
        "tpu_halted": Subtype(
            "The TPU core halted during the program",
            (
                "Restart the TPU runtime (a fresh process; stop and start the TPU VM if it persists) "
                "before rerunning: a halted core does not recover in the same process.",
                "If it recurs at the same step, suspect the program: run custom kernels (Pallas) in "
                "interpret mode and check gather/scatter indices for out-of-range values.",
                "Upgrade jax/jaxlib and libtpu together; report a reproducible halt with its HLO dump.",
            ),
        ),
        "preemption": Subtype(
            "TPU or worker was preempted",
            (
                "Resume from the last checkpoint on a fresh TPU; use a queued resource or a "
                "reservation if preemptions are frequent.",
            ),
        ),
    },
    facts=_conn_facts,
    headline=_conn_headline,
)


_STRATEGY = re.compile(r"<([\w.]+(?:Strategy\w*)) object")


def _scope_facts(lines: list[str]) -> dict:
    name = first_group([_STRATEGY], lines)
    return {"strategy": name.rsplit(".", 1)[-1]} if name else {}


STRATEGY_SCOPE = Category(
    id="strategy_scope",
    title="Model or optimizer created outside the distribution strategy's scope",
    explanation=(
        "Variables belong to the tf.distribute strategy whose scope was active when they were "
        "made; a model, optimizer or metric built outside strategy.scope() (or under another "
        "strategy) cannot be placed on the TPU replicas."
    ),
    fixes=(
        "Create the model, the optimizer and the metrics, and call model.compile(), all inside "
        "one `with strategy.scope():` block.",
        "Build exactly one TPUStrategy per process and reuse it; do not mix it with the default "
        "or another strategy.",
        "Restore checkpoints (model.load_weights / checkpoint.restore) inside the same scope so "
        "optimizer slots are created there too.",
        "Wrap the optimizer for TPU training (CrossShardOptimizer in TF1 estimators) so gradients "
        "are combined across cores.",
    ),
    signatures=(
        sig(
            r"Trying to create optimizer slot variable under the scope for tf\.distribute\.Strategy"
            r"|different from the scope used for the original variable",
            0.96,
            "optimizer slot variable",
            "scope used for the original",
        ),
        # The last sentence of the same TF message, when the log wrapped it onto its own line.
        sig(r"slot variables are created under the same strategy scope", 0.93, "slot variables are created"),
        sig(r"Mixing different tf\.distribute\.Strategy objects", 0.95, "Mixing different"),
        sig(r"Need to be inside \"?with strategy\.scope\(\)", 0.93, "Need to be inside"),
        sig(
            r"was not created in the distribution strategy scope|must only be passed a variable "
            r"created in this tf\.distribute\.Strategy\.scope\(\)",
            0.94,
            "distribution strategy scope",
            "created in this tf.distribute",
        ),
        sig(
            r"created (?:outside|not under) (?:of )?(?:the )?(?:distribution )?strategy(?:'s)? "
            r"scope",
            0.86,
            "strategy",
        ),
        sig(
            r"CrossShardOptimizer must be used", 0.85, "CrossShardOptimizer", subtype="cross_shard_optimizer"
        ),
        sig(r"in _wrong_strategy_scope\b", 0.8, "_wrong_strategy_scope"),
        # A distributed variable updated outside strategy.run / the scope it was made in.
        sig(
            r"(?:SyncOnRead|Mirrored|Distributed|TPUMirrored)Variable does not support .{0,80}"
            r"cross-replica context",
            0.82,
            "cross-replica context",
        ),
        sig(r"in _validate_compile\b", 0.62, "_validate_compile"),
    ),
    subtypes={"cross_shard_optimizer": Subtype("Optimizer not wrapped for TPU training")},
    facts=_scope_facts,
    headline=lambda facts: facts.get("strategy", ""),
)
