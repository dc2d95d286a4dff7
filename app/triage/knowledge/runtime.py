"""The job's surroundings: ``connection_loss``, ``local_filesystem``, ``strategy_scope``,
``checkpoint``.

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
        "A gRPC connection to the TPU host, a worker or the coordination service failed or was "
        "closed; the usual causes are a preempted or restarted TPU, a crashed peer process, or a "
        "wrong address."
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
    ),
    subtypes={
        "preemption": Subtype(
            "TPU or worker was preempted",
            (
                "Resume from the last checkpoint on a fresh TPU; use a queued resource or a "
                "reservation if preemptions are frequent.",
            ),
        )
    },
    facts=_conn_facts,
    headline=_conn_headline,
)


_LOCAL_FILE = re.compile(r"\(file: '([^']*)'\)")


def _local_facts(lines: list[str]) -> dict:
    path = first_group([_LOCAL_FILE], lines)
    return {"path": path} if path else {}


LOCAL_FILESYSTEM = Category(
    id="local_filesystem",
    title="Local path used where the TPU needs Cloud Storage",
    explanation=(
        "The file operation runs on the TPU host, which cannot see paths on your machine; input "
        "files, caches and the model directory must live in a gs:// bucket the TPU can read and "
        "write."
    ),
    fixes=(
        "Put the training data and model_dir / checkpoint directory in a Cloud Storage bucket "
        "(gs://bucket/...) and pass those paths instead of local ones.",
        "Give the TPU's service account read and write access to that bucket.",
        "Cache datasets in memory with dataset.cache() (no argument) instead of to a local file.",
        "For a saved model or initial weights on local disk, copy them to the bucket first (gsutil cp -r).",
    ),
    signatures=(sig(r"File system scheme '\[local\]' not implemented", 0.98, "scheme '[local]'"),),
    facts=_local_facts,
    headline=lambda facts: facts.get("path", ""),
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


# A storage permission error is about a checkpoint unless the object it names is a TensorBoard
# event file or an input record file: those are written / read by other parts of the job.
_NOT_CKPT_OBJECT = r"(?!.{0,300}(?:tfevents|\.tfrecords?\b|\.tfrec\b))"

_CKPT_PATH = re.compile(r"((?:gs://|/)[^\s'\":,]*(?:ckpt|checkpoint)[^\s'\":,]*)", re.IGNORECASE)
_HTTP = re.compile(r"(?:HTTP response code|code\"?:) ?(\d{3})")


def _ckpt_facts(lines: list[str]) -> dict:
    facts: dict = {}
    for key, pattern in (("path", _CKPT_PATH), ("http_status", _HTTP)):
        value = first_group([pattern], lines)
        if value:
            facts[key] = value
    return facts


CHECKPOINT = Category(
    id="checkpoint",
    title="Saving or restoring a checkpoint failed",
    explanation=(
        "Writing or reading the training state failed: the bucket is not writable or readable "
        "by the job, the checkpoint is incomplete or from a different model, or a save raced "
        "with something else touching the same files."
    ),
    fixes=(
        "Check access to the checkpoint directory: the TPU / VM service account needs "
        "storage.objects.create, get and list on the bucket (roles/storage.objectAdmin).",
        "Make sure the model being restored has the same structure (layer names and shapes) as "
        "the one that wrote the checkpoint, or restore only the matching parts.",
        "Delete incomplete checkpoints (tmp directories left by an interrupted save) and restore "
        "from the last complete step.",
        "Save from one place at a time: do not let two jobs or an async save and a cleanup write "
        "the same directory, and wait for async saves to finish before exiting.",
        "Make sure the disk or bucket has room and is not rate-limiting writes.",
    ),
    signatures=(
        sig(r"Restoring from checkpoint failed", 0.95, "Restoring from checkpoint"),
        # TF's Saver ops: whatever failed (a 503 from the bucket, a full disk) failed the save.
        sig(
            r"\[\[\{?\{?node save(?:_\d+)?/(?:SaveV2|RestoreV2|MergeV2Checkpoints)",
            0.85,
            "SaveV2",
            "RestoreV2",
            "MergeV2",
        ),
        sig(r"Key \S+ not found in checkpoint", 0.94, "not found in checkpoint"),
        sig(
            r"does not match the shape stored in checkpoint|shape_and_slice",
            0.9,
            "stored in checkpoint",
            "shape_and_slice",
        ),
        sig(r"Unsuccessful TensorSliceReader constructor", 0.88, "TensorSliceReader"),
        # torch load_state_dict: the weights file and the model disagree.
        sig(
            r"Error\(s\) in loading state_dict for|(?:Missing|Unexpected) key\(s\) in state_dict|"
            r"copying a param with shape .{0,120} from checkpoint",
            0.88,
            "state_dict",
            "copying a param",
        ),
        # TF1 Saver restoring into a graph whose variable has another shape.
        sig(r"Assign requires shapes of both tensors to match", 0.72, "Assign requires shapes"),
        # tf.train.init_from_checkpoint: a variable's shape differs from the stored tensor's.
        sig(r"doesn't match with shape of tensor .{0,200}from checkpoint reader", 0.92, "checkpoint reader"),
        # jax array serialization (Orbax / t5x) limits bytes in flight while reading or writing.
        sig(r"Requested more bytes than we reserved space for", 0.8, "reserved space for"),
        sig(r"Error opening \"\w+\" driver|tensorstore", 0.85, "driver", "tensorstore"),
        sig(
            r"(?:does not have|missing) storage\.(?:objects|buckets)\.\w+ (?:access|permission)"
            + _NOT_CKPT_OBJECT,
            0.72,
            "storage.",
        ),
        sig(
            r"(?:(?:PermissionError|[Pp]ermission denied).{0,120}gs://|gs://.{0,200}(?:write "
            r"access|[Pp]ermission denied))" + _NOT_CKPT_OBJECT,
            0.72,
            "ermission",
        ),
        sig(
            r"(?:404|NotFound|No such object|does not exist).{0,200}(?:checkpoint|ckpt)|"
            r"(?:checkpoint|ckpt).{0,200}(?:does not exist|No such object|NotFound)",
            0.8,
            "heckpoint",
            "ckpt",
            ignorecase=False,
        ),
        # torch.load of tensors saved on a device this process does not have (e.g. xla:0).
        sig(r"don't know how to restore data location of", 0.86, "restore data location"),
        # A generic failure that names a checkpoint; not a file-system-scheme error whose path
        # merely contains the word (gs://.../checkpoints is then incidental).
        sig(
            r"^(?!.*File system scheme)"
            r"(?:.*?(?:[Ee]rror|[Ff]ailed|[Ff]ailure|[Uu]nable|[Cc]annot|[Cc]ould not).{0,120}"
            r"(?:checkpoint|ckpt)|.*?(?:checkpoint|ckpt).{0,80}(?:[Ee]rror|[Ff]ailed|[Ff]ailure))",
            0.6,
            "heckpoint",
            "ckpt",
        ),
        sig(
            r"File \"[^\"]*(?:orbax/checkpoint|checkpoint_manag|/training/saver\.py|"
            r"checkpoint(?:s|_utils)?\.py)",
            0.52,
            'File "',
        ),
        # The same frames as IPython prints them: "/.../checkpoint_utils.py in _init_from_checkpoint(".
        sig(
            r"(?:orbax/checkpoint|checkpoint_manag|/training/saver\.py|checkpoint(?:s|_utils)?\.py)"
            r"\S* in \w+\(",
            0.52,
            "heckpoint",
            "saver.py",
        ),
    ),
    facts=_ckpt_facts,
    headline=lambda facts: facts.get("path", ""),
)
