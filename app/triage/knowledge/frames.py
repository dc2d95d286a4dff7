"""Where an error was raised: library frames and the user's own function names.

A traceback says which machinery failed even when the message is new: an exception raised inside
``tf.data`` or a Keras data adapter is about the input pipeline, one inside orbax or a Keras saving
module about a checkpoint, one inside ``tf.distribute`` about the strategy, one in a shape rule of
``jax.lax`` about the program's shapes. Each rule is (path pattern, function pattern or None,
category, strength); the innermost library frames count most (see :mod:`..features`).
"""

from __future__ import annotations

import re

_RULES: tuple[tuple[str, str | None, str, float], ...] = (
    # -- input pipeline ---------------------------------------------------------------------------
    (r"/tensorflow/python/data/", None, "input_pipeline", 1.0),
    (
        r"/keras/src/trainers/data_adapters/|/keras/(?:src/)?engine/data_adapter\.py",
        None,
        "input_pipeline",
        0.9,
    ),
    (
        r"/tf_keras/src/engine/data_adapter\.py|/keras/src/trainers/epoch_iterator\.py",
        None,
        "input_pipeline",
        0.8,
    ),
    (r"/tensorflow_datasets/|/grain/|/torch/utils/data/|/tensorflow_io/", None, "input_pipeline", 1.0),
    (r"/datasets/(?:load|builder|arrow_dataset|iterable_dataset)\.py", None, "input_pipeline", 0.8),
    (r"input_pipeline|data_?loader|/dataloaders?/|_dataset\.py|/data/\w+\.py", None, "input_pipeline", 0.5),
    (r"/tpu_estimator\.py", r"_run_infeed|enqueue|_InputPipeline|generate_infeed", "input_pipeline", 0.8),
    # -- checkpoints --------------------------------------------------------------------------------
    (r"/orbax/|/tensorstore/|/t5x/checkpoints\.py|/flax/training/checkpoints\.py", None, "checkpoint", 1.0),
    (r"/tensorflow/python/(?:checkpoint|training/saving)/", None, "checkpoint", 0.9),
    (
        r"/tensorflow/python/training/(?:saver|checkpoint_utils|py_checkpoint_reader|checkpoint_management)\.py",
        None,
        "checkpoint",
        1.0,
    ),
    (
        r"/keras/src/saving/|/keras/(?:src/)?legacy/saving/|/keras/saving/|/tf_keras/src/saving/",
        None,
        "checkpoint",
        1.0,
    ),
    (
        r"/h5py/|/safetensors/|/torch/serialization\.py|/torch/distributed/checkpoint/",
        None,
        "checkpoint",
        1.0,
    ),
    (r"/flax/serialization\.py|/flax/nnx/.*checkpoint", None, "checkpoint", 0.6),
    (r"/tensorflow/python/saved_model/", None, "checkpoint", 0.6),
    (r"/transformers/modeling(?:_flax|_tf)?_utils\.py", r"load|from_pretrained", "checkpoint", 0.5),
    (r"checkpoint", None, "checkpoint", 0.6),
    # -- distribution strategy / mesh ---------------------------------------------------------------
    (r"/tensorflow/python/distribute/(?!cluster_resolver)", None, "strategy_scope", 0.7),
    (
        r"/keras/(?:src/)?(?:engine|distribute)/",
        r"_validate_compile|_wrong_strategy_scope|scope",
        "strategy_scope",
        0.8,
    ),
    (
        r"",
        r"_wrong_strategy_scope|_require_cross_replica|_assert_in_default_state|_create_slots|add_slot|"
        r"_distributed_apply|merge_call|_check_strategy",
        "strategy_scope",
        0.7,
    ),
    (r"/jax/_src/(?:mesh|sharding_impls)\.py", None, "strategy_scope", 0.4),
    # -- the TPU or a peer --------------------------------------------------------------------------
    (r"/jax/_src/distributed\.py|/jax/_src/clusters/", None, "connection_loss", 0.9),
    (
        r"/jax/_src/xla_bridge\.py",
        r"backends|_init_backend|make_tpu_client|_get_backend_uncached",
        "connection_loss",
        0.6,
    ),
    (
        r"/distribute/cluster_resolver/|tpu_system_metadata\.py|/tpu/tpu_strategy_util\.py",
        None,
        "connection_loss",
        0.8,
    ),
    (r"/grpc/|/torch/distributed/(?:rendezvous|distributed_c10d)\.py", None, "connection_loss", 0.8),
    (
        r"/torch_xla/(?:core/xla_model|distributed/)",
        r"rendezvous|mesh_reduce|wait_device_ops",
        "connection_loss",
        0.6,
    ),
    # -- device memory ---------------------------------------------------------------------------
    (r"/torch/cuda/memory\.py", None, "oom", 0.6),
    # -- numerics ----------------------------------------------------------------------------------
    (
        r"/jax/_src/(?:dispatch|pjit|interpreters/pxla)\.py",
        r"check_special|_check_special|_check_nans",
        "nan_inf",
        1.0,
    ),
    (
        r"/tensorflow/python/ops/numerics\.py|/callbacks/terminate_on_nan\.py|/torch/autograd/anomaly_mode\.py",
        None,
        "nan_inf",
        1.0,
    ),
    (r"", r"check_numerics|assert_all_finite|_check_nan", "nan_inf", 0.8),
    # -- dtypes -----------------------------------------------------------------------------------
    (r"/jax/_src/dtypes\.py", None, "unsupported_dtype", 0.8),
    (r"/tensorflow/python/framework/dtypes\.py", None, "unsupported_dtype", 0.8),
    (
        r"/tensorflow/python/framework/op_def_library\.py",
        r"_SatisfiesTypeConstraint|_apply_op_helper",
        "unsupported_dtype",
        0.5,
    ),
    (
        r"/tensorflow/python/framework/(?:constant_op|tensor_util)\.py",
        r"convert_to_eager_tensor|make_tensor_proto",
        "unsupported_dtype",
        0.6,
    ),
    # -- shapes and compilation -------------------------------------------------------------------
    (
        r"/jax/_src/lax/",
        r"\w*_shape_rule|_check_shapelike|broadcasting_shape_rule|_dot_general_shape|"
        r"_conv_general_dilated|_check_same_dtypes|_try_broadcast_shapes",
        "compile_error",
        1.0,
    ),
    (r"/jax/_src/numpy/", r"_broadcast_shapes|broadcast_shapes|_try_broadcast_shapes", "compile_error", 0.8),
    (
        r"/keras/src/layers/input_spec\.py|/keras/(?:src/)?engine/input_spec\.py|/keras/src/ops/operation_utils\.py",
        None,
        "compile_error",
        0.8,
    ),
    (
        r"/tensorflow/python/framework/(?:ops|tensor_shape)\.py",
        r"_create_c_op|assert_is_compatible_with|merge_with|assert_has_rank",
        "compile_error",
        0.8,
    ),
    (
        r"/jax/_src/(?:compiler|dispatch)\.py",
        r"backend_compile|compile_or_get_cached|_cached_compilation",
        "compile_error",
        0.5,
    ),
    (
        r"/jax/_src/interpreters/mlir\.py",
        r"lower_jaxpr|jaxpr_subcomp|lower_per_platform",
        "compile_error",
        0.3,
    ),
    (r"/jax/_src/pallas/mosaic/|/jax/_src/tpu_custom_call\.py", None, "compile_error", 0.7),
    # a Pallas kernel body traced against its refs' block shapes; a sharding checked against the
    # value it is given: the program's own structure, before anything runs
    (
        r"/jax/_src/pallas/(?:pallas_call|primitives)\.py",
        r"_trace_kernel_to_jaxpr|wrap_with_transforms",
        "compile_error",
        0.7,
    ),
    (
        r"/jax/_src/(?:named_sharding|sharding_impls|pjit)\.py",
        r"check_compatible_aval|check_aval_sharding",
        "compile_error",
        0.6,
    ),
    (r"/jax/_src/pallas/pallas_call\.py", r"_pallas_call_lowering", "unsupported_op", 0.7),
    (
        r"/jax/_src/core\.py",
        r"concrete_or_error|canonicalize_shape|_invalid_shape_error|__bool__|__index__|"
        r"error_for_bool|_error_if_unhashable",
        "dynamic_shape",
        0.8,
    ),
    (
        r"/jax/_src/numpy/",
        r"nonzero|unique|_rewriting_take|_expand_bool_indices|argwhere|flatnonzero",
        "dynamic_shape",
        0.6,
    ),
    (r"/jax/_src/export/", None, "dynamic_shape", 0.6),
    (r"/torch_xla/", None, "compile_error", 0.1),
)

RULES = tuple(
    (re.compile(path) if path else None, re.compile(func) if func else None, category, strength)
    for path, func, category, strength in _RULES
)

# Words in the user's own function and file names: the job's code says what it was doing.
USER_WORDS: tuple[tuple[re.Pattern, str, float], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), category, strength)
    for pattern, category, strength in (
        (
            r"ckpt|checkpoint|restore|save_model|load_model|load_weights|save_weights|load_state|"
            r"load_pretrained|from_pretrained|serializ",
            "checkpoint",
            1.0,
        ),
        (
            r"dataset|input_fn|dataloader|data_loader|load_data|get_batch|next_batch|preprocess|"
            r"make_iterator|input_pipeline|tfrecord|pipeline",
            "input_pipeline",
            1.0,
        ),
        (r"distribut|strategy|replica|shard_model|mesh", "strategy_scope", 0.6),
        (r"connect|init_tpu|initialize_tpu|distributed_init|cluster", "connection_loss", 0.8),
    )
)
