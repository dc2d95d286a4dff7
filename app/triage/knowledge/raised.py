"""What the frameworks raise, by the message templates in their source.

Each entry is read off the place a framework raises or logs the error (JAX's ``lax/control_flow``,
``api.py``, ``custom_derivatives.py``, ``sharding_impls.py``, ``named_sharding.py``, ``shard_map.py``,
``pxla.py``; TensorFlow's ``data`` and Keras' dataset utilities; PyTorch/XLA's dispatcher; XNNPACK's
allocator logs), not off any one reported error: the fixed part of the template, with the variable
parts (names, shapes, sizes) left open. The label of each follows docs/triage-labels.md.

``MESSAGES`` are matched against the text of the exceptions that ended the program (and glog error
lines); ``LINES`` against every line of the error region, for what is printed rather than raised (a
training loop's own ``loss inf``, ``Found 0 files``). Each entry: (category, subtype, confidence,
pattern, categories it refines, i.e. whose evidence it replaces).
"""

from __future__ import annotations

import re
from typing import NamedTuple


class Template(NamedTuple):
    category: str
    subtype: str
    weight: float
    pattern: re.Pattern
    refines: tuple[str, ...] = ()


def _t(category: str, subtype: str, weight: float, regex: str, refines=(), flags=0) -> Template:
    return Template(category, subtype, weight, re.compile(regex, flags), tuple(refines))


_SHAPES = ("dynamic_shape", "unsupported_dtype")
_NOT_COMPILE = ("compile_error", "dynamic_shape")

MESSAGES: tuple[Template, ...] = (
    # -- JAX: a program rejected while it was traced (lax control flow, vmap, scan, grad, custom rules).
    _t(
        "compile_error",
        "control_flow",
        0.93,
        r"Pred must be a scalar|Pred type must be either boolean|cond_fun must return a boolean scalar|"
        r"Branch index must be scalar|cond predicate is None|Index type must be an integer|"
        r"(?:true_fun and false_fun|branch \d+ and \d+) outputs? must have|must have identical types, got|"
        r"(?<!while_loop body function )carry input and carry output must have|"
        r"while_loop body function carry input and carry output must have"
        r"(?!.{0,600}?so the shapes do not match)|"
        r"output (?:pytree structure|shapes) must match|"
        r"type-changing mutations not allowed in while_loop|lower and upper arguments to fori_loop|"
        r"Can only use `unroll` in `fori_loop`",
        _SHAPES,
    ),
    # A while_loop whose state grows or shrinks each time round: its size depends on how many times
    # the loop runs, a value (labelling guide: loop state that grows is a dynamic shape).
    _t(
        "dynamic_shape",
        "loop_state",
        0.9,
        r"while_loop body function carry input and carry output must have.{0,600}?so the shapes do not match",
        ("compile_error",),
    ),
    _t(
        "compile_error",
        "vmap",
        0.93,
        r"[vp]map in_axes must be|[vp]map out_axes must be|[vp]map got inconsistent sizes|"
        r"vmap was requested to map its argument along axis|vmap has mapped output but out_axes is None|"
        r"vmap must have at least one non-None value in in_axes|(?:in|out)_axes specification must be a "
        r"tree prefix|axis_size must be specified|[vp]map got arg \d+ of rank \d+ but axis to be mapped",
        _SHAPES,
    ),
    _t(
        "compile_error",
        "scan",
        0.93,
        r"scan got values with different leading axis sizes|scan got `length` argument of|"
        r"scan got no values to scan over|must provide `length` to `scan`|zero-length scan is not supported|"
        r"scan number of arguments doesn't match",
        _SHAPES,
    ),
    _t(
        "compile_error",
        "autodiff",
        0.93,
        r"Gradient only defined for scalar-output functions|"
        r"differentiating with respect to argnums=.{0,60}requires at least|"
        r"cotangent (?:tree|type) does not match function output|primal and tangent arguments to jax\.jvp|"
        r"jvp called with different primal and tangent shapes|Reverse-mode differentiation does not work for|"
        r"Custom (?:VJP|JVP) (?:\w+ )?rule|custom_[vj]jp-decorated function|custom_vjp (?:fwd|bwd) function|"
        r"Can't use ``defjvps`` with ``nondiff_argnums``",
        _SHAPES,
    ),
    _t(
        "compile_error",
        "jit_arguments",
        0.9,
        r"Non-hashable static arguments are not supported|"
        r"Jitted function has (?:static_arg|donate_arg|invalid argnames)|"
        r"(?:in|out)_axes specification must be a tree prefix|"
        r"as an abstract array\. The problematic value is of type <class '(?!numpy\.ndarray)|"
        r"Initializer expected to generate shape|ScopeParamShapeError",
        _SHAPES,
    ),
    # TensorFlow: variables made on every call of a tf.function; Flax: state touched across traces.
    _t(
        "compile_error",
        "trace_state",
        0.9,
        r"tf\.function only supports singleton tf\.Variables|[Cc]reating variables on a non-first call|"
        r"TraceContextError|from a different trace level|Jax transforms and Flax models cannot be mixed",
        _SHAPES,
    ),
    # A traced value where Python needs a concrete int or bool (a slice length, range(), a shape, an
    # `if`): the fix is static_argnums or lax control flow (labelling guide, rule 11). A size that
    # comes from the data's values (nonzero, unique, a boolean mask) stays a dynamic shape, below.
    _t(
        "compile_error",
        "traced_value",
        0.9,
        r"TracerBoolConversionError|TracerIntegerConversionError|Attempted boolean conversion of traced|"
        r"The __index__\(\) method was called on traced|Shapes must be 1D sequences of concrete values|"
        r"Array slice indices must have static start/stop/step|method was called on the JAX Tracer object|"
        r"(?:^|\W)ConcretizationTypeError|Abstract tracer value encountered where concrete value is expected|"
        r"Slice entries must be static integers|TracerArrayConversionError|"
        r"The numpy\.ndarray conversion method __array__\(\) was called on",
        ("dynamic_shape",),
    ),
    # -- JAX: the mesh, the sharding, the devices (labelling guide, rule 5).
    _t(
        "strategy_scope",
        "mesh_axis",
        0.95,
        r"is not found in mesh|[Uu]nbound axis name|axis name .{0,40}(?:not (?:bound|found|in the mesh))|"
        r"The following axis names \(e\.g\. defined by \w+\) are available",
        _NOT_COMPILE,
    ),
    _t(
        "strategy_scope",
        "sharding_rank",
        0.93,
        r"is only valid for values of rank at least|Length of sharding\.spec must be equal to",
        _NOT_COMPILE,
    ),
    _t(
        "strategy_scope",
        "indivisible",
        0.86,
        r"implies that array axis \d+ is partitioned \d+ times|should evenly divide the shape|"
        r"not evenly divisible by the corresponding mesh axis|IndivisibleError|"
        r"args? (?:was|were) given the sharding of|global size of its dimension \d+ should be divisible by",
        ("compile_error",),
    ),
    _t(
        "strategy_scope",
        "sharding_tree",
        0.9,
        r"pjit (?:in|out)_shardings|(?:in|out)_shardings (?:specification|tree|must|has|is)|"
        r"(?:in|out)_shardings .{0,80}(?:length|pytree|structure)",
        _NOT_COMPILE,
    ),
    _t(
        "strategy_scope",
        "devices",
        0.94,
        r"incompatible devices for jitted computation|committed to different devices|"
        r"[Dd]evices of all `?Array`? inputs and outputs should be the same|device_assignment .{0,60}must "
        r"match|[Dd]evice assignment .{0,80}(?:does not|doesn't) match|"
        r"was committed to device .{0,80} but (?:was|is) used",
        _NOT_COMPILE,
    ),
    _t(
        "strategy_scope",
        "shard_map",
        0.9,
        r"shard_map applied to the function .{0,120} was given|out_specs passed to shard_map|"
        r"shard_map in_specs|shard_map requires a `?jax\.sharding|shard_map .{0,80}(?:in|out)_specs|"
        r"`manual_axis_type` field of ShapedArray should be of type `Manual`|"
        r"with_sharding_constraint.{0,200}(?:shard_map|[Mm]anual)|spmd_axis_name|"
        r"(?:Mapped away dimension of inputs|Unmapped values) passed to vmap",
        _NOT_COMPILE,
    ),
    _t(
        "strategy_scope",
        "no_mesh",
        0.9,
        r"does not match the number of devices|[Nn]umber of devices .{0,60}(?:does not|doesn't) match|"
        r"set a mesh via `?jax\.(?:set|sharding\.use)_mesh|context mesh cannot be empty|mesh cannot be empty|"
        r"enter your `?jit`? into a mesh context|PartitionSpec.{0,120}(?:without|outside|requires) (?:a|an "
        r"active)? ?mesh|Mesh requires the ndim of its first argument|`with mesh:` context manager has",
        _NOT_COMPILE,
    ),
    # -- The input pipeline: nothing to read, or a map function of the wrong shape.
    _t(
        "input_pipeline",
        "empty",
        0.92,
        r"No images found in directory|No (?:text )?files found in directory|No files matched pattern|"
        r"matched no files|Found 0 (?:files|images)|[Dd]ataset (?:is empty|has no elements)",
    ),
    _t(
        "input_pipeline",
        "cardinality",
        0.9,
        r"Data cardinality is ambiguous|[Mm]ake sure all arrays contain the same number of samples",
        ("compile_error", "dynamic_shape"),
    ),
    # Flax's serialization and PyTorch's state dicts: a checkpoint of another structure (rule 1).
    _t(
        "checkpoint",
        "restore_mismatch",
        0.9,
        r"target dict keys and state dict keys do not match|(?:Missing|Unexpected) key\(s\) in state_dict|"
        r"size mismatch for [\w.]+: copying a param",
        ("compile_error", "strategy_scope"),
    ),
    # A checkpoint's array of another shape than the model's (T5X, Flax, TF's own wording varies):
    # a restore into another model (rule 1).
    _t(
        "checkpoint",
        "shape_mismatch",
        0.88,
        r"in (?:the )?checkpoint\b.{0,60}(?:does not|doesn't) match|"
        r"(?:does not|doesn't) match .{0,40}(?:stored |saved )?in (?:the )?checkpoint",
        ("compile_error", "dynamic_shape", "strategy_scope"),
    ),
    # JAX's mesh helpers (mesh_utils.create_device_mesh, jax.make_mesh): a mesh of more devices than
    # there are (rule 5).
    _t(
        "strategy_scope",
        "mesh_devices",
        0.9,
        r"Number of devices \d+ must (?:equal|be >=) the product of mesh_shape",
        ("compile_error",),
    ),
    # Keras' check that fit() got something to train on (training_utils / data_adapter_utils): an
    # empty dataset or array (rule 6).
    _t(
        "input_pipeline",
        "empty",
        0.9,
        r"Empty training data|Expect x to be a non-empty array or dataset|"
        r"Unexpected result of `\w+_function` \(Empty logs\)",
    ),
    # TensorFlow's kernels for an operand of another dtype than the op was built for (op_kernel.cc),
    # and its conversion of a NumPy object array (rule 9).
    _t(
        "unsupported_dtype",
        "operand_dtype",
        0.9,
        r"cannot compute \w+ as input #\d+(?:\(zero-based\))? was expected to be an? \w+ tensor "
        r"but is an? \w+ tensor|"
        r"Failed to convert a NumPy array to a Tensor \(Unsupported object type",
        ("compile_error",),
    ),
    # TensorFlow's image decoding kernels (decode_image_op.cc and friends) on a file that is not one.
    _t(
        "input_pipeline",
        "decode",
        0.9,
        r"Invalid (?:PNG|JPEG|GIF|BMP)\b|Failed to initialize decoder|Unknown image file format|"
        r"(?:cannot|could not|unable to) (?:identify|decode) image",
    ),
    _t(
        "input_pipeline",
        "padded_batch",
        0.9,
        r"padded shape .{0,80} is not compatible with the shape|Attempted to pad to a smaller size",
        ("compile_error", "dynamic_shape"),
    ),
    _t(
        "input_pipeline",
        "batching",
        0.86,
        r"Cannot batch tensors with different shapes in component|Cannot add tensor to the batch: number of "
        r"elements does not match|Dimensions of inputs should match.{0,80}(?:from_tensor_slices|slices)",
        _SHAPES + ("compile_error",),
    ),
    # -- A storage scheme the path library has no handler for (etils.epath's registry raises a bare
    # KeyError of the scheme): the runtime cannot open that kind of path at all (rule 3).
    _t(
        "local_filesystem",
        "scheme",
        0.9,
        r"^'?(?:hdfs|s3a?|az|abfss?|gcs|wasbs?|oss|cos|ftp)://'?$|"
        r"[Nn]o (?:registered )?(?:path|file ?system) (?:class |handler )?for (?:the )?scheme",
        ("checkpoint",),
    ),
    # Python's own open() (and NumPy's, pickle's, json's through it) takes a URL for a local file name:
    # it never opens a bucket. TensorFlow's file_io lists s3:// and hdfs:// only with tensorflow-io
    # installed, else it answers that the directory does not exist.
    _t(
        "local_filesystem",
        "url_as_local_path",
        0.9,
        r"\[Errno 2\] No such file or directory: '(?:gs|gcs|s3a?|hdfs|az|abfss?|https?)://|"
        r"Could not find directory (?:s3a?|hdfs|az|abfss?)://",
        ("checkpoint", "input_pipeline"),
    ),
    # -- Memory on the host's CPU backend, in XNNPACK's and the allocators' words (rule 2).
    _t(
        "oom",
        "host",
        0.9,
        r"(?:XNNPACK|YNNPACK|xnn_|ynn_|[Xx]npack|[Yy]npack).{0,160}(?:alloc|out[ _]of[ _]memory)|"
        r"failed to allocate \d+ bytes|std::bad_alloc|[Cc]annot allocate memory|could not allocate memory|"
        r"[Ff]ailed to allocate (?:memory|buffer|host memory)|Allocator \(\w+\) ran out of memory|"
        r"out of memory trying to allocate",
    ),
    # -- PyTorch/XLA: an aten op with no XLA lowering, a CPU fallback that cannot run (rule 8).
    _t(
        "unsupported_op",
        "aten",
        0.92,
        r"Could not run '?aten::\w+'? with arguments from the '?(?:XLA|PrivateUse1)'? backend|"
        r"aten::\w+.{0,80}(?:not (?:yet )?(?:implemented|supported|lowered)|has no (?:XLA )?lowering)|"
        r"[Oo]p\(s\) not lowered: aten::|No lowering (?:found )?for aten::",
    ),
    # -- libtpu and the TPU runtime on its own terms: the devices cannot be opened or reached (rule 4).
    _t(
        "connection_loss",
        "tpu_runtime",
        0.85,
        r"TPU initialization failed|Couldn't open (?:TPU )?device|Failed to get TPU metadata|"
        r"No TPU devices? (?:found|available)|TPU backend (?:not available|failed)|ICI link.{0,60}down|"
        r"[Mm]egascale.{0,80}(?:timed out|unavailable|failed|error)",
    ),
)

# Printed, not raised: read on every line of the error region.
LINES: tuple[Template, ...] = (
    # A training loop's own report that the loss overflowed (float16) or went NaN.
    _t(
        "nan_inf",
        "loss",
        0.84,
        r"\b(?:train[_ ]|total[_ ]|val[_ ])?loss\b\W{0,3}(?:=|:|is|became|becomes|was)?\s*[-+]?"
        r"(?:nan|inf|infinity)\b",
        flags=re.IGNORECASE,
    ),
    _t(
        "input_pipeline",
        "empty",
        0.86,
        r"Found 0 (?:files|images) belonging to|No images found in directory|No files matched pattern",
    ),
    _t(
        "unsupported_op",
        "aten",
        0.8,
        r"[Oo]p\(s\) not lowered: aten::|Could not run '?aten::\w+'? with arguments from the '?XLA",
    ),
)

# Words of JAX's transformations: a plain TypeError / ValueError raised while JAX traced a function
# (its traceback-filtering notice says so) that speaks of them is a trace-time rejection.
JAX_TRACE_WORDS = re.compile(
    r"\b(?:jit|vmap|pmap|scan|cond|switch|while_loop|fori_loop|grad|value_and_grad|vjp|jvp|custom_vjp|"
    r"custom_jvp|in_axes|out_axes|static_argnums|static_argnames|pytree|PyTreeDef|[Tt]racer|[Tt]raced|"
    r"ShapedArray|primal|tangent|cotangent|carry|jaxpr|abstract value)\b"
)
# What a framework's own shape check speaks of (a shape, a rank, an operand's dimensions, a pytree's
# leaves, a permutation of axes): a plain TypeError / ValueError with these words, raised by the
# framework's code while it traced or built the program, is the program rejected before it ran.
SHAPE_WORDS = re.compile(
    r"\b(?:\w*shapes?|dimensions?|dims?|ndims?|ranks?|axis|axes|operands?|leaves|permutation|"
    r"subscripts?|feature_group_count|\w+\[\d+(?:,\d+)*\])\b"
)
# A shape not known until the data comes (``None`` dimensions): not a check of a static program.
UNKNOWN_DIMS = re.compile(r"fully[- ]defined|`?None`? dimensions?|unknown (?:rank|shape|dimension)")
# The packages that trace or build a program: their plain errors about shapes are their checks.
TRACING_PACKAGES = frozenset(
    {"jax", "jaxlib", "flax", "keras", "tf_keras", "tensorflow", "haiku", "equinox", "torch_xla"}
)
# The user's own Python mistakes, whoever's frame raised them: a card would send them the wrong way.
PLAIN_PYTHON = re.compile(
    r"takes \d+ positional arguments? but \d+ (?:was|were) given|missing \d+ required (?:positional|keyword)|"
    r"got an unexpected keyword argument|object has no attribute|name '[^']+' is not defined|object is not "
    r"(?:subscriptable|callable|iterable)|got multiple values for argument|unsupported operand type"
)
# Library frames that call a dataset's own function (map, filter, a transform): an error raised through
# them is the input pipeline's, whatever the function did wrong (labelling guide, rule 6).
PIPELINE_FRAMES = re.compile(
    r"tensorflow/python/data/ops/(?:structured_function|from_generator_op)\.py|"
    r"grain/_src/python/(?:dataset/transformations|operations|data_loader|lazy_dataset)|"
    r"torch/utils/data/_utils/(?:fetch|worker)|datasets/arrow_dataset"
)
# The sharding's own words: a JAX-raised error that speaks of them is about the mesh and sharding.
SHARDING_WORDS = re.compile(
    r"\b(?:in_shardings|out_shardings|in_specs|out_specs|PartitionSpec|NamedSharding|mesh axis|"
    r"mesh axes|device mesh|axis_names|axis names?|mesh_shape|mesh|sharding)\b"
)
