"""Where the job's files live: ``local_filesystem`` and ``checkpoint``.

Sources: the Cloud TPU troubleshooting guide (local file system), the notes on InternalError while
saving checkpoints, and what TensorFlow's file systems, Keras saving, orbax / tensorstore and
torch.load print.
"""

from __future__ import annotations

import re

from .base import Category, Subtype, first_group, sig

_LOCAL_FILE = re.compile(r"\(file: '([^']*)'\)")


def _local_facts(lines: list[str]) -> dict:
    path = first_group([_LOCAL_FILE], lines)
    return {"path": path} if path else {}


LOCAL_FILESYSTEM = Category(
    id="local_filesystem",
    title="Path the job's file system cannot use",
    explanation=(
        "The file operation runs where the path means nothing: the TPU host cannot see paths on "
        "your machine, and a TensorFlow build without an s3://, hdfs:// or az:// file system cannot "
        "open those. Input files, caches and the model directory must live in a gs:// bucket the "
        "TPU can read and write."
    ),
    fixes=(
        "Put the training data and model_dir / checkpoint directory in a Cloud Storage bucket "
        "(gs://bucket/...) and pass those paths instead of local ones.",
        "Give the TPU's service account read and write access to that bucket.",
        "Cache datasets in memory with dataset.cache() (no argument) instead of to a local file.",
        "For a saved model or initial weights on local disk, copy them to the bucket first (gsutil cp -r).",
    ),
    signatures=(
        sig(r"File system scheme '\[local\]' not implemented", 0.98, "scheme '[local]'"),
        # Another scheme this build has no file system for (s3://, hdfs://, az://, a gcs:// typo).
        sig(
            r"File system scheme '[\w+.\-]+' not implemented|"
            r"No (?:registered )?file ?system (?:registered )?for "
            r"scheme|No FileSystem for scheme|Unsupported (?:URI|URL|path) scheme",
            0.88,
            "scheme '",
            "ystem for scheme",
            "FileSystem for scheme",
            "nsupported URI",
            "nsupported URL",
            "nsupported path",
            subtype="scheme",
        ),
    ),
    subtypes={
        "scheme": Subtype(
            "Storage scheme not available in this build",
            (
                "Use gs:// paths (TensorFlow reads Cloud Storage natively) and check the spelling: "
                "gs://bucket/..., not gcs://.",
                "For s3://, hdfs:// or az:// install the file system plugin (tensorflow-io) or copy "
                "the data and checkpoints to a gs:// bucket first.",
            ),
        )
    },
    facts=_local_facts,
    headline=lambda facts: facts.get("path", ""),
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
        # TF's Saver ops: whatever failed (a 503 from the bucket, a full disk) failed the save, so
        # the transport's own words (connection_loss) are not the diagnosis (labelling guide, rule 1).
        sig(
            r"\[\[\{?\{?node save(?:_\d+)?/(?:SaveV2|RestoreV2|MergeV2Checkpoints)",
            0.85,
            "SaveV2",
            "RestoreV2",
            "MergeV2",
            refines=("connection_loss",),
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
            frames=True,
        ),
        # The same frames as IPython prints them: "/.../checkpoint_utils.py in _init_from_checkpoint(".
        sig(
            r"(?:orbax/checkpoint|checkpoint_manag|/training/saver\.py|checkpoint(?:s|_utils)?\.py)"
            r"\S* in \w+\(",
            0.52,
            "heckpoint",
            "saver.py",
            frames=True,
        ),
    ),
    facts=_ckpt_facts,
    headline=lambda facts: facts.get("path", ""),
)
