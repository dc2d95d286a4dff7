"""Rules added after measuring the classifier on error output it had not seen.

Each fixture is written for this file (the wording the frameworks print, with made-up names, paths and
sizes) and checks one rule, plus near misses that must not name a category.
"""

from __future__ import annotations

import pytest

from tests.helpers import primary_category

TF_OOM_HINT = (
    "  Allocation type: HLO temp\n"
    "\t [[{{node XRTCompile}}]]\n"
    "Hint: If you want to see a list of allocated tensors when OOM happens, add "
    "report_tensor_allocations_upon_oom to RunOptions for current allocation info.\n"
    "0 successful operations.\n"
    "0 derived errors ignored.\n"
)

JAX_TRACED_SLICE = (
    "IndexError: Array slice indices must have static start/stop/step to be used with NumPy indexing "
    "syntax. Found slice(Traced<ShapedArray(int32[])>, None, None). To index a statically sized array "
    "at a dynamic position, try lax.dynamic_slice/dynamic_update_slice (JAX does not support dynamically "
    "sized arrays within JIT compiled functions).\n"
)

XLA_CPU_KERNEL = (
    "tensorflow.python.framework.errors_impl.NotFoundError: No registered 'StringFormat' OpKernel for "
    "XLA_CPU devices compatible with node {{node StringFormat}}\n"
)

TPU_STRING_TYPE = (
    "InvalidArgumentError: Unsupported data type for TPU: string, caused by output "
    "IteratorGetNext:1 [Op:__inference_train_function_4711]\n"
)

MOSAIC_PARTITION = (
    "Mosaic kernels cannot be automatically partitioned. Please wrap the call in a shard_map.\n"
)

INIT_FROM_CHECKPOINT = (
    "ValueError: Shape of variable encoder/layer_3/dense/kernel:0 ((512, 2048)) doesn't match with "
    "shape of tensor encoder/layer_3/dense/kernel ([768, 3072]) from checkpoint reader.\n"
)

SERIALIZATION_BYTES = (
    "ValueError: Requested more bytes than we reserved space for: 21474836480 > 17179869184\n"
)

KERAS_WRAPPED_WARNING = (
    "Epoch 7/20\n"
    "Make sure that your dataset or generator can generate at least `steps_per_epoch * epochs` "
    "batches (in this case, 2000 batches). You may need to use the repeat() function when building "
    "your dataset.\n"
)

LOSS_BECAME_NAN = "FloatingPointError: Loss became infinite or NaN at iteration=1207!\n"
LOSS_IS_NAN = "ValueError: The loss returned by the training step is nan, stopping.\n"

_HTTP_403 = (
    "PermissionDeniedError: Error executing an HTTP request: HTTP response code 403 with body '{\n"
    '    "message": "tpu-sa@proj.iam.gserviceaccount.com does not have storage.objects.create access '
    "to the Google Cloud Storage object "
)
_EVENTS = "runs/exp1/train/events.out.tfevents.1700000000.host-0.5.v2"
TENSORBOARD_403 = (
    f'{_HTTP_403}{_EVENTS}.",\n'
    f"\t when initiating an upload to gs://{_EVENTS}\n"
    f"\tFailed to flush 3 events to gs://{_EVENTS}\n"
)
CHECKPOINT_403 = f'{_HTTP_403}runs/exp1/ckpt/model.ckpt-5000.index.",\n'

TF_MASTER_UNREACHABLE = (
    "W0301 09:12:44.100200 140001 tpu_system_metadata.py:97] Failed to connect to the Tensorflow "
    "master. The TPU worker may not be ready (still scheduling) or the Tensorflow master address is "
    "incorrect: got (grpc://10.1.2.3:8470).\n"
)
OLD_JAX_INDEX = (
    "TypeError: The __index__ method was called on the JAX Tracer object "
    "Traced<ShapedArray(int32[])>with<DynamicJaxprTrace(level=1/0)>\n"
)
TPU_COMPILE_LOG = (
    "2023-05-02 11:00:01.000000: I tensorflow/core/tpu/kernels/tpu_compile_op_common.cc:175] "
    "Compilation of 1234567890123 with session name  took 12.5s and failed\n"
)
PTXAS_CRASH = (
    "2024-02-02 10:00:00.000000: F external/xla/xla/service/gpu/gpu_compiler.cc:600] Non-OK-status: "
    "status\nStatus: INTERNAL: ptxas exited with non-zero error code 11, output:\n"
)
TORCH_STATE_DICT = (
    "RuntimeError: Error(s) in loading state_dict for VisionEncoder:\n"
    "\tsize mismatch for head.weight: copying a param with shape torch.Size([1000, 768]) from "
    "checkpoint, the shape in current model is torch.Size([10, 768]).\n"
)
TF1_ASSIGN = (
    "InvalidArgumentError (see above for traceback): Assign requires shapes of both tensors to match. "
    "lhs shape= [256,10] rhs shape= [256,1000]\n"
    "\t [[Node: save/Assign_41 = Assign[T=DT_FLOAT](dense/kernel, save/RestoreV2:41)]]\n"
)
IPYTHON_CKPT_FRAME = (
    "ValueError                                Traceback (most recent call last)\n"
    "<ipython-input-9-0a1b2c3d4e5f> in <module>()\n"
    "----> 1 finetune(model_dir)\n"
    "/usr/local/lib/python3.8/dist-packages/tensorflow/python/training/checkpoint_utils.py in "
    "_init_from_checkpoint(ckpt_dir_or_file, assignment_map)\n"
    "ValueError: Shape of variable encoder/embe\n"
)


@pytest.mark.parametrize(
    ("text", "category"),
    [
        (TF_OOM_HINT, "oom"),
        (JAX_TRACED_SLICE, "compile_error"),
        (XLA_CPU_KERNEL, "unsupported_op"),
        (TPU_STRING_TYPE, "unsupported_dtype"),
        (MOSAIC_PARTITION, "compile_error"),
        (INIT_FROM_CHECKPOINT, "checkpoint"),
        (SERIALIZATION_BYTES, "checkpoint"),
        (KERAS_WRAPPED_WARNING, "input_pipeline"),
        (LOSS_BECAME_NAN, "nan_inf"),
        (LOSS_IS_NAN, "nan_inf"),
        (CHECKPOINT_403, "checkpoint"),
        (TF_MASTER_UNREACHABLE, "connection_loss"),
        (OLD_JAX_INDEX, "compile_error"),
        (TPU_COMPILE_LOG, "compile_error"),
        (PTXAS_CRASH, "compile_error"),
        (TORCH_STATE_DICT, "checkpoint"),
        (TF1_ASSIGN, "checkpoint"),
        (IPYTHON_CKPT_FRAME, "checkpoint"),
    ],
    ids=[
        "tf-oom-hint",
        "jax-traced-slice",
        "xla-cpu-kernel",
        "tpu-string-type",
        "mosaic-partition",
        "init-from-checkpoint",
        "serialization-bytes",
        "keras-wrapped-warning",
        "loss-became-nan",
        "loss-is-nan",
        "checkpoint-403",
        "tf-master-unreachable",
        "old-jax-index",
        "tpu-compile-log",
        "ptxas-crash",
        "torch-state-dict",
        "tf1-assign",
        "ipython-checkpoint-frame",
    ],
)
def test_new_rule_names_theprimary_category(text, category):
    assert primary_category(text) == category


@pytest.mark.parametrize(
    "text",
    [
        TENSORBOARD_403,
        "I0101 10:00:00.000000 1 attention.py:88] Using Mosaic kernels for flash attention (block 512)\n",
        "Mosaic kernel cache at /tmp/mosaic warmed up in 3.2s\n",
        "Epoch 3: val_loss did not improve from inf, error rate 0.12\n",
        "WARNING: steps_per_epoch * epochs = 4000 (from the config)\n",
        "I0101 10:00:00.000000 1 ckpt.py:10] No checkpoint path provided, not restoring from checkpoint\n",
        "INFO: Compilation of 1234567890123 with session name  took 3.1s\n",
    ],
    ids=[
        "tensorboard-403",
        "mosaic-info",
        "mosaic-cache",
        "val-loss-inf",
        "steps-config",
        "no-checkpoint-info",
        "compile-ok-info",
    ],
)
def test_near_misses_name_noprimary_category(text):
    assert primary_category(text) == "unknown"
