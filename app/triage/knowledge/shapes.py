"""What XLA cannot compile for the TPU: ``dynamic_shape``, ``unsupported_op``, ``unsupported_dtype``.

Sources: the Cloud TPU troubleshooting guide (dynamic shapes, unavailable ops, unsupported data
types), the Keras-on-TPU InternalError notes, JAX's tracer errors (ConcretizationTypeError and
friends) and the wording TensorFlow's tf2xla bridge and PyTorch/XLA print.
"""

from __future__ import annotations

import re

from .base import Category, Subtype, first_group, sig

_DIM = re.compile(r"fixed size for dimension (\w+)")
_SHAPE = re.compile(r"shape (\[[^\]]*\]|\([^)]*\))")
_DYN_OP = re.compile(r"[Dd]ynamic ([\w ]{2,40}?) (?:is|are) not (?:yet )?supported")
_HLO = re.compile(r"(%[\w.\-]+) = ")


def _dyn_facts(lines: list[str]) -> dict:
    facts: dict = {}
    for key, pattern in (("dimension", _DIM), ("shape", _SHAPE), ("operation", _DYN_OP), ("hlo", _HLO)):
        value = first_group([pattern], lines)
        if value:
            facts[key] = value
    return facts


def _dyn_headline(facts: dict) -> str:
    if "dimension" in facts:
        return f"dimension {facts['dimension']} of {facts.get('shape', 'a tensor')}"
    if "operation" in facts:
        return f"dynamic {facts['operation']}"
    return ""


DYNAMIC_SHAPE = Category(
    id="dynamic_shape",
    title="Shape not known at compile time",
    explanation=(
        "XLA compiles a program for fixed tensor shapes; a shape that depends on the data (a "
        "partial last batch, a boolean mask, nonzero/unique, a Python int taken from a traced "
        "value) cannot be compiled or forces a recompilation for every new shape."
    ),
    fixes=(
        "Give every batch the same size: batch the dataset with drop_remainder=True (or pad the "
        "last batch and mask it in the loss).",
        "Replace data-dependent shapes with fixed ones: pad variable-length inputs to a few "
        "bucket lengths, use masks or jnp.where instead of boolean indexing, and pass size= to "
        "nonzero / unique.",
        "In JAX, mark arguments that decide shapes as static (static_argnums / static_argnames) "
        "or compute them outside the jitted function.",
        "Keep Python control flow off tensor values inside compiled functions; use lax.cond / "
        "tf.cond or masks.",
    ),
    signatures=(
        sig(r"must have a fixed size for dimension", 0.96, "fixed size for dimension"),
        sig(
            r"must be a compile-time constant|evaluated to concrete values at compile time|"
            r"requires a fixed tensor list size|can't deduce compile time constant",
            0.92,
            "compile-time constant",
            "concrete values",
            "fixed tensor list",
            "compile time const",
        ),
        sig(r"[Dd]ynamic (?:[\w-]+ ){0,3}(?:is|are) not (?:yet )?(?:supported|implemented)", 0.92, "ynamic"),
        sig(
            r"dynamic dimension|dynamic shapes? (?:is|are)? ?not|[Dd]ynamic shapes? (?:is|are) "
            r"not supported|bounded dynamic",
            0.86,
            "ynamic",
        ),
        sig(
            r"ConcretizationTypeError|Abstract tracer value encountered where concrete value is "
            r"expected|Shapes must be 1D sequences of concrete values",
            0.92,
            "Concretization",
            "concrete value",
            subtype="jax_tracer",
        ),
        sig(
            r"TracerBoolConversionError|TracerIntegerConversionError|NonConcreteBooleanIndexError"
            r"|Array boolean indices must be concrete",
            0.9,
            "Tracer",
            "NonConcrete",
            "must be concrete",
            subtype="jax_tracer",
        ),
        # Keras 2's TPU model conversion (keras_support) and its wrapped second line.
        sig(
            r"has a variable shape in a non-batch dimension|TPU models must(?: have constant shapes|\s*$)",
            0.93,
            "non-batch dimension",
            "TPU models",
        ),
        sig(
            r"must be statically specified|static_argnums",
            0.7,
            "statically specified",
            "static_argnums",
            subtype="jax_tracer",
        ),
        sig(r"TracerArrayConversionError", 0.72, "Tracer", subtype="jax_tracer"),
        # Older JAX wording of TracerIntegerConversionError.
        sig(r"method was called on the JAX Tracer object", 0.88, "Tracer object", subtype="jax_tracer"),
        sig(
            r"must have static start/stop/step|does not support dynamically sized arrays",
            0.9,
            "static start/stop/step",
            "dynamically sized arrays",
            subtype="jax_tracer",
        ),
    ),
    subtypes={
        "partial_batch": Subtype(
            "A batch of another size reached a fixed-shape step",
            (
                "Steps had already run when the shapes stopped fitting: the last, smaller batch is the "
                "usual cause. Batch with drop_remainder=True, or pad the last batch and mask it.",
            ),
        ),
        "jax_tracer": Subtype(
            "A traced (abstract) value was used where JAX needs a concrete one",
            (
                "Move the value that decides a shape or a Python branch out of the jitted function, "
                "or declare it static with static_argnums / static_argnames.",
            ),
        ),
    },
    facts=_dyn_facts,
    headline=_dyn_headline,
)


_OP_PATTERNS = [
    re.compile(r"No registered '([\w>.:-]+)' OpKernel"),
    re.compile(r"No OpKernel was registered to support Op '([\w>.:-]+)'"),
    re.compile(r"compile graph \S+ on XLA_\w+_JIT: ?([\w, ]+?)(?: \(|$)"),
    re.compile(r"primitive '([^']+)'"),
    re.compile(r"'aten::(\w+)'"),
    re.compile(r"[Oo]p ['`]?([\w>.:-]+)['`]? is not supported"),
]
_DEVICE = re.compile(r"for ('?[\w]+'?) devices|on (XLA_\w+_JIT)|for platform (\w+)|the '(\w+)' backend")


def _op_facts(lines: list[str]) -> dict:
    facts: dict = {}
    op = first_group(_OP_PATTERNS, lines)
    if op:
        facts["op"] = op.strip().rstrip(",")
    for line in lines:
        m = _DEVICE.search(line)
        if m:
            facts["device"] = next(g for g in m.groups() if g).strip("'")
            break
    return facts


def _op_headline(facts: dict) -> str:
    if "op" in facts:
        return f"{facts['op']} on {facts['device']}" if "device" in facts else facts["op"]
    return ""


UNSUPPORTED_OP = Category(
    id="unsupported_op",
    title="Operation not available on the TPU / XLA",
    explanation=(
        "The model uses an operation that has no XLA (TPU) implementation, so the graph cannot be "
        "compiled for the device; string ops, py_func, ragged ops and some image ops are typical."
    ),
    fixes=(
        "Move the operation into the input pipeline (tf.data map on the host CPU) or "
        "pre-process it offline, so the compiled step sees only dense numeric tensors.",
        "Replace it with an equivalent built from supported ops (check the list of TensorFlow ops "
        "available on Cloud TPU, or write it with jnp / lax primitives).",
        "Remove debugging and Python callbacks from the compiled step (tf.print of strings, "
        "py_function, numeric-check hooks) or run them outside it.",
        "If the op must stay, run that part outside the compiled function (outside_compilation / "
        "host callback), accepting the host round trip.",
    ),
    signatures=(
        # Not when the op exists and only the requested dtype is missing: that is a dtype problem.
        sig(
            r"Detected unsupported operations when trying to compile graph"
            r"(?!.*attributes didn't match\)?.{0,40}"
            r"Requested Attributes:.{0,200}=\[?DT_(?:U?INT8|U?INT16|U?INT64|DOUBLE|COMPLEX128|HALF)\b)",
            0.93,
            "unsupported operations",
        ),
        # torch_xla's debug analysis names ATen ops that have no XLA lowering (they run on CPU).
        sig(r"Op\(s\) not lowered: \S", 0.85, "Op(s) not lowered"),
        sig(r"No registered '[^']+' OpKernel for '?(?:XLA_\w+|TPU|CPU|GPU)'? devices", 0.9, "OpKernel"),
        # TF 1.x's wording for the same: the op has no kernel on any device this process has.
        sig(r"No OpKernel was registered to support Op '[^']+'", 0.88, "No OpKernel was registered"),
        sig(r"MLIR translation rule for primitive '[^']+' not found", 0.92, "MLIR translation"),
        sig(r"Could not run 'aten::\w+' with arguments from the '\w+' backend", 0.9, "aten::"),
        sig(
            r"[Oo]p(?:eration)? ['`]?[\w>.:-]+['`]? is not supported (?:on|by) (?:TPU|XLA)",
            0.85,
            "not supported on",
            "not supported by",
        ),
        sig(
            r"not compilable|[Cc]ompilation is not supported for this op",
            0.6,
            "compilable",
            "not supported for this op",
        ),
        # JAX primitives whose lowering exists for some backends only ("... is only implemented
        # on the CPU and GPU backends"), and the same said of TPU directly.
        sig(
            r"only implemented (?:on|for) (?:the )?(?:CPU|GPU|cpu|gpu)(?:,? (?:and|or) (?:CPU|GPU|cpu|gpu))?"
            r" backends?|not (?:yet )?implemented (?:on|for) (?:the )?TPU",
            0.88,
            "implemented on",
            "implemented for",
        ),
        # XLA found a custom call (an op from a library or a newer jax) it has no emitter for.
        sig(
            r"Custom emitter for \w+ not found|No registered implementation for custom call",
            0.8,
            "ustom emitter",
            "custom call",
        ),
    ),
    facts=_op_facts,
    headline=_op_headline,
)


_DTYPE_PATTERNS = [
    re.compile(r"T=(DT_\w+)"),
    re.compile(r"Element type (\w+) is not supported"),
    re.compile(r"\b(U8|S8|U16|S16|F64|C64|C128|S64|U64|X64) (?:and \w+ )?(?:element )?types?"),
    re.compile(r"(64-bit) data types"),
    re.compile(r"DataType (\w+) is not a supported"),
    re.compile(r"stype=(\w+)"),
    re.compile(r"of (\w+) is not in the list of allowed values"),
    re.compile(r"'(\w+)' DataTypeToPrimitiveType|DataTypeToPrimitiveType: '(\w+)'"),
    re.compile(r"RHS type on target: '([^']+)'"),
    re.compile(r"\b(f64|c128|s64|u8)\["),
]


def _dtype_facts(lines: list[str]) -> dict:
    value = first_group(_DTYPE_PATTERNS, lines)
    return {"dtype": value} if value else {}


def _dtype_headline(facts: dict) -> str:
    return facts.get("dtype", "")


UNSUPPORTED_DTYPE = Category(
    id="unsupported_dtype",
    title="Data type not supported on the TPU",
    explanation=(
        "A tensor reaching the TPU has a type it cannot hold or compute with; TPUs work in "
        "float32, bfloat16, int32 and bool, while int64, uint8, float64, complex and strings must "
        "be converted on the host first."
    ),
    fixes=(
        "Cast in the input pipeline before the data reaches the device: labels and ids int64 -> "
        "int32, images uint8 -> float32 or bfloat16 (tf.cast / .astype).",
        "Keep strings on the host: decode or look them up into integer ids in the input pipeline.",
        "Avoid float64 / complex128: leave jax_enable_x64 off on TPU, do not use .double() in "
        "PyTorch/XLA, and build numpy inputs as float32.",
        "Check the dataset's element_spec (dtypes and shapes) before training to see every type "
        "that will be fed to the TPU.",
    ),
    signatures=(
        sig(r"is not a supported TPU infeed type", 0.97, "infeed type"),
        sig(r"[Uu]nsupported data ?type for (?:the )?TPU", 0.95, "data type for", "datatype for"),
        sig(r"64-bit data types are not (?:yet )?supported", 0.95, "64-bit"),
        sig(r"Element type \w+ is not supported on TPU", 0.95, "Element type"),
        sig(
            r"\b(?:U8|S8|U16|S16|F64|C64|C128|S64|U64)\b(?: and \w+)? types? (?:is|are) not "
            r"supported",
            0.94,
            "not supported",
        ),
        sig(r"X64 element types|Unsupported XLA type", 0.93, "X64", "Unsupported XLA type"),
        # The kernel exists, but not for the requested type: a dtype problem when that type is a
        # number type the TPU lacks; otherwise (a variant from a dataset, a host-compute op) the op is
        # the issue. Strings are either (a string op, or string data fed to the device): the rest of
        # the evidence decides.
        sig(
            r"OpKernel was found, but attributes didn't match\)?.{0,40}Requested Attributes:.{0,200}"
            r"=\[?DT_(?:U?INT8|U?INT16|U?INT64|DOUBLE|COMPLEX128|HALF)\b",
            0.94,
            "attributes didn't match",
            refines=("unsupported_op",),
        ),
        sig(
            r"OpKernel was found, but attributes didn't match\)?.{0,40}Requested Attributes:.{0,200}"
            r"=\[?DT_STRING\b",
            0.9,
            "attributes didn't match",
        ),
        sig(r"OpKernel was found, but attributes didn't match", 0.8, "attributes didn't match"),
        # TensorFlow's op type check, for the types a TPU program cannot hold.
        sig(
            r"has DataType (?:float64|double|int64|uint8|uint16|int16|string|complex128) not in list of "
            r"allowed values",
            0.86,
            "DataType",
        ),
        sig(
            r"DataType \w+ is not (?:a )?supported|Unsupported type in DataTypeToPrimitiveType",
            0.9,
            "DataType",
        ),
        sig(r"Unsupported matmul RHS type", 0.93, "RHS type", subtype="mosaic"),
        sig(
            r"(?:int64|uint8|float64|double|string|complex\w*) (?:data ?type |dtype )?(?:is|are) "
            r"not supported on (?:the )?TPU",
            0.9,
            "not supported on",
        ),
        sig(r"Value for attr '\w+' of \w+ is not in the list of allowed values", 0.72, "allowed values"),
    ),
    subtypes={"mosaic": Subtype("Matmul operand type not supported by this TPU generation")},
    facts=_dtype_facts,
    headline=_dtype_headline,
)
