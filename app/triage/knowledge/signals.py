"""Structural signals: what an error's class, module, status code and failing op say about it.

Each table maps a piece of structure the parser finds (see :mod:`..structure`) to the categories it
points at, with a strength in 0..1. None decides alone: the scorer adds them up with the frames,
the words of the message and the signatures, and learned weights say how much each kind counts.

Sources: the frameworks' own exception hierarchies (``tf.errors``, ``jax.errors``, orbax's and
Keras' raise sites), absl / gRPC status codes, TensorFlow's op names, XLA's error-code catalog.
"""

from __future__ import annotations

# Short exception class name -> ((category, strength), ...).
EXCEPTIONS: dict[str, tuple[tuple[str, float], ...]] = {
    # device memory
    "ResourceExhaustedError": (("oom", 1.0),),
    "OutOfMemoryError": (("oom", 1.0),),
    "MemoryError": (("oom", 0.8),),
    # JAX's tracer errors: a value known only at run time was needed while tracing
    "ConcretizationTypeError": (("dynamic_shape", 1.0),),
    "TracerBoolConversionError": (("dynamic_shape", 1.0),),
    "TracerIntegerConversionError": (("dynamic_shape", 1.0),),
    "TracerArrayConversionError": (("dynamic_shape", 0.8),),
    "NonConcreteBooleanIndexError": (("dynamic_shape", 1.0),),
    "InconclusiveDimensionOperation": (("dynamic_shape", 1.0),),
    # Flax: parameters passed to apply do not fit the module (often restored from another config)
    "ScopeParamShapeError": (("compile_error", 0.5), ("checkpoint", 0.4)),
    "ScopeParamNotFoundError": (("checkpoint", 0.5),),
    # a program the compiler or tracer rejects
    "UnexpectedTracerError": (("compile_error", 0.9),),
    "MosaicError": (("compile_error", 1.0),),
    "LoweringException": (("compile_error", 0.7), ("unsupported_op", 0.3)),
    "InternalError": (("compile_error", 0.3),),
    "XlaRuntimeError": (("compile_error", 0.2),),
    "JaxRuntimeError": (("compile_error", 0.2),),
    # operations with no implementation for the device
    "UnimplementedError": (("unsupported_op", 0.6),),
    "NotImplementedError": (("unsupported_op", 0.6),),
    # dtype problems raise TypeError in every framework; shape problems do too (weaker)
    "TypeError": (("unsupported_dtype", 0.3), ("compile_error", 0.3)),
    # the TPU or a peer
    "UnavailableError": (("connection_loss", 1.0),),
    "DeadlineExceededError": (("connection_loss", 0.9),),
    "AbortedError": (("connection_loss", 0.5),),
    "CancelledError": (("connection_loss", 0.3),),
    "ConnectionError": (("connection_loss", 0.9),),
    "ConnectionRefusedError": (("connection_loss", 1.0),),
    "ConnectionResetError": (("connection_loss", 1.0),),
    "ConnectionAbortedError": (("connection_loss", 1.0),),
    "BrokenPipeError": (("connection_loss", 0.7),),
    "TimeoutError": (("connection_loss", 0.6),),
    # gRPC raises the same class for every status: the status (UNAVAILABLE, ...) says whether the
    # peer was lost or the call was refused for another reason (a message too large, bad arguments).
    "_InactiveRpcError": (("connection_loss", 0.4),),
    "RpcError": (("connection_loss", 0.4),),
    "DistBackendError": (("connection_loss", 0.7),),
    "DistNetworkError": (("connection_loss", 1.0),),
    # the input pipeline
    "OutOfRangeError": (("input_pipeline", 1.0),),
    "StopIteration": (("input_pipeline", 1.0),),
    "DatasetNotFoundError": (("input_pipeline", 1.0),),
    # checkpoints
    "UnpicklingError": (("checkpoint", 0.7),),
    "SafetensorError": (("checkpoint", 1.0),),
    "StepAlreadyExistsError": (("checkpoint", 1.0),),
    "CheckpointNotFoundError": (("checkpoint", 1.0),),
    "DataLossError": (("checkpoint", 0.5), ("input_pipeline", 0.4)),
    "PermissionDeniedError": (("checkpoint", 0.4),),
    "PermissionError": (("checkpoint", 0.4),),
    "Forbidden": (("checkpoint", 0.5),),
    # numerics
    "FloatingPointError": (("nan_inf", 1.0),),
    # jax.experimental.checkify's numeric checks
    "DivisionByZeroError": (("nan_inf", 1.0),),
    "NaNError": (("nan_inf", 1.0),),
    # a Python int too large for the array's integer type
    "OverflowError": (("unsupported_dtype", 0.7),),
    "IndivisibleError": (("dynamic_shape", 0.5), ("strategy_scope", 0.3)),
}

# Leading parts of an exception's qualified name (its module) -> what raises there.
MODULES: tuple[tuple[str, str, float], ...] = (
    ("orbax", "checkpoint", 1.0),
    ("tensorstore", "checkpoint", 0.9),
    ("h5py", "checkpoint", 0.8),
    ("safetensors", "checkpoint", 1.0),
    ("_pickle", "checkpoint", 0.5),
    ("grpc", "connection_loss", 0.4),
    ("torch.distributed", "connection_loss", 0.6),
    ("tensorflow_datasets", "input_pipeline", 1.0),
    ("grain", "input_pipeline", 1.0),
    ("torch.utils.data", "input_pipeline", 1.0),
    ("datasets", "input_pipeline", 0.6),
)

# absl / gRPC status codes (also TF's error classes, see structure._TF_CLASSES).
STATUSES: dict[str, tuple[tuple[str, float], ...]] = {
    "RESOURCE_EXHAUSTED": (("oom", 1.0),),
    "UNAVAILABLE": (("connection_loss", 1.0),),
    "DEADLINE_EXCEEDED": (("connection_loss", 0.9),),
    "ABORTED": (("connection_loss", 0.4),),
    "CANCELLED": (("connection_loss", 0.3),),
    "OUT_OF_RANGE": (("input_pipeline", 1.0),),
    "UNIMPLEMENTED": (("unsupported_op", 0.6),),
    "INVALID_ARGUMENT": (("compile_error", 0.3),),
    "INTERNAL": (("compile_error", 0.4),),
    "DATA_LOSS": (("checkpoint", 0.5), ("input_pipeline", 0.4)),
    "PERMISSION_DENIED": (("checkpoint", 0.5),),
    "NOT_FOUND": (("checkpoint", 0.2),),
}

# TF op types (the last part of a node name, numbered suffix dropped) -> category.
NODES: dict[str, tuple[tuple[str, float], ...]] = {
    **{
        op: (("input_pipeline", 1.0),)
        for op in (
            "IteratorGetNext",
            "IteratorGetNextSync",
            "IteratorGetNextAsOptional",
            "MultiDeviceIteratorGetNextFromShard",
            "OneShotIterator",
            "MakeIterator",
            "AnonymousIteratorV3",
            "ParseExample",
            "ParseExampleV2",
            "ParseSingleExample",
            "DecodeJpeg",
            "DecodePng",
            "DecodeImage",
            "DecodeRaw",
            "TFRecordDataset",
            "GeneratorDataset",
            "FlatMapDataset",
            "InfeedEnqueueTuple",
            "AutoShardDataset",
            "DatasetToGraphV2",
        )
    },
    **{
        op: (("checkpoint", 1.0),)
        for op in (
            "SaveV2",
            "RestoreV2",
            "MergeV2Checkpoints",
            "SaveSlices",
            "RestoreSlice",
            "ShardedFilename",
        )
    },
    "CheckNumerics": (("nan_inf", 1.0),),
    "CheckNumericsV2": (("nan_inf", 1.0),),
    "XRTCompile": (("compile_error", 0.5),),
    "TPUCompile": (("compile_error", 0.5),),
    "EagerPyFunc": (("unsupported_op", 0.6),),
    "PyFunc": (("unsupported_op", 0.6),),
    # Shape-checked math: a mismatch here is the program's (or a batch's) shape.
    **{
        op: (("compile_error", 0.5), ("dynamic_shape", 0.2))
        for op in (
            "Reshape",
            "MatMul",
            "BatchMatMulV2",
            "BatchMatMulV3",
            "Conv2D",
            "BiasAdd",
            "ConcatV2",
            "AddV2",
            "Mul",
            "Sub",
            "BroadcastTo",
            "SparseSoftmaxCrossEntropyWithLogits",
            "SoftmaxCrossEntropyWithLogits",
            "Einsum",
            "Squeeze",
            "StridedSlice",
            "Pack",
        )
    },
    "Cast": (("unsupported_dtype", 0.5),),
}

# XLA's published error codes (E0100 ... E3000): the first digit is the family.
XLA_CODES: tuple[tuple[str, str, float], ...] = (
    ("E00", "oom", 1.0),  # runtime allocation failures (E0100, E0101)
    ("E10", "oom", 1.0),  # compile-time HBM OOM (E1000, E1002); E1001 is vmem (see signatures)
    ("E12", "compile_error", 1.0),
    ("E2", "compile_error", 1.0),  # Mosaic
    ("E3", "compile_error", 1.0),  # SparseCore
)
