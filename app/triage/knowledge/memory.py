"""Device memory and compiler failures: ``oom`` and ``compile_error``.

Sources: the Cloud TPU troubleshooting guide (reducing memory use) and XLA's error-code catalog
(E0100/E0101 runtime allocation failures, E1000/E1002 compile-time HBM OOM, E1001 scoped vmem OOM,
E2xxx Mosaic kernel errors, E3xxx SparseCore allocation failures).
"""

from __future__ import annotations

import re

from .base import Category, Subtype, first_group, sig

_SIZE = r"(\d+(?:\.\d+)?\s?[KMGTP]i?B?|\d+(?:\.\d+)?\s?bytes|\d+B)"
_USED_OF = re.compile(rf"[Uu]sed:? {_SIZE}(?: of|;? limit:?) {_SIZE}")
_EXCEEDED = re.compile(rf"[Ee]xceeded \w+ capacity by {_SIZE}")
_REQUEST = re.compile(rf"Attempting to (?:reserve|allocate) {_SIZE}")
_FREE = re.compile(rf"There (?:are|is) {_SIZE} free")
_OOM_BYTES = re.compile(r"(?:allocating|allocate) (\d+) bytes")
_SHAPE = re.compile(r"tensor with shape\s?(\[[^\]]*\])")
_SPACE = re.compile(r"memory space (\w+)")
_CODE = re.compile(r"\b(E\d{4})\b")
_CAPACITY = re.compile(rf"HBM capacity {_SIZE}")


def _oom_facts(lines: list[str]) -> dict:
    facts: dict = {}
    for line in lines:
        m = _USED_OF.search(line)
        if m and "hbm_used" not in facts:
            facts["hbm_used"], facts["hbm_limit"] = m.group(1), m.group(2)
    for key, pattern in (
        ("exceeded_by", _EXCEEDED),
        ("requested", _REQUEST),
        ("free", _FREE),
        ("requested_bytes", _OOM_BYTES),
        ("tensor_shape", _SHAPE),
        ("memory_space", _SPACE),
        ("xla_error_code", _CODE),
        ("hbm_limit", _CAPACITY),
    ):
        if key not in facts:
            value = first_group([pattern], lines)
            if value:
                facts[key] = value
    return facts


def _oom_headline(facts: dict) -> str:
    if "hbm_used" in facts:
        return f"needs {facts['hbm_used']}, has {facts['hbm_limit']}"
    if "requested" in facts and "free" in facts:
        return f"asked for {facts['requested']} with {facts['free']} free"
    if "tensor_shape" in facts:
        return f"tensor of shape {facts['tensor_shape']}"
    return ""


OOM = Category(
    id="oom",
    title="Device memory (HBM) exhausted",
    explanation=(
        "The program, its weights, optimizer state and activations need more accelerator memory "
        "than the chip has, so the runtime or the compiler gave up."
    ),
    fixes=(
        "Lower the per-core batch size (halve it, keep it a multiple of 8) and retry.",
        "Switch to an optimizer with less state per weight: Adam and Adadelta keep two extra "
        "values per weight, Momentum and Adagrad one, plain SGD none; Adafactor needs very little.",
        "Train in bfloat16 and avoid float32 copies of large activations.",
        "Recompute activations in the backward pass instead of storing them (rematerialisation, "
        "jax.checkpoint / gradient checkpointing).",
        "Shard parameters and optimizer state across cores (FSDP / model parallelism) instead of "
        "replicating them on every core.",
        "Shrink what pads badly: TPU tensors are padded to multiples of 8 x 128, so odd feature "
        "sizes and tiny batch dimensions waste memory.",
        "Reduce the model (fewer or narrower layers, shorter sequences, smaller vocabulary).",
    ),
    signatures=(
        sig(r"memory space hbm", 0.97, "memory space hbm", subtype="hbm"),
        sig(r"\bE1000\b|CompileTimeHbmOom", 0.97, "E1000", "CompileTimeHbmOom", subtype="hbm"),
        sig(
            r"Aborting compilation early because it's unlikely to have enough memory",
            0.96,
            "enough memory",
            subtype="hbm",
        ),
        sig(r"\bE1002\b|Hbm usage:? .* exceeding available", 0.95, "E1002", "Hbm usage", subtype="hbm"),
        sig(r"\bE010[01]\b", 0.95, "E010", subtype="runtime_allocation"),
        sig(
            r"Attempting to (?:reserve|allocate) \S+.{0,40}That was not possible",
            0.95,
            "That was not possible",
            subtype="runtime_allocation",
        ),
        sig(
            r"RuntimeBufferAllocationFailure|Error allocating device buffer",
            0.93,
            "AllocationFailure",
            "device buffer",
            subtype="runtime_allocation",
        ),
        sig(r"\bOOM when allocating tensor", 0.95, "OOM when", subtype="tensor_allocation"),
        sig(
            r"Out of memory (?:while trying to )?allocating",
            0.93,
            "Out of memory",
            subtype="runtime_allocation",
        ),
        sig(r"CUDA out of memory|CUDA_ERROR_OUT_OF_MEMORY", 0.9, "CUDA"),
        # TensorFlow appends this hint only to allocation failures (also when XRT/TPU compiles).
        sig(
            r"list of allocated tensors when OOM happens|report_tensor_allocations_upon_oom",
            0.85,
            "report_tensor_allocations_upon_oom",
            "when OOM happens",
        ),
        sig(r"Program hbm requirement|Total hbm usage", 0.85, "hbm requirement", "hbm usage", subtype="hbm"),
        # Not gRPC's message-size limit nor a cloud quota: those are RESOURCE_EXHAUSTED too.
        sig(
            r"(?:RESOURCE_EXHAUSTED|ResourceExhaustedError|Resource exhausted)(?!.{0,80}(?:"
            r"message larger than|[Qq]uota|capacity in the zone|[Rr]ate limit))",
            0.75,
            "RESOURCE_EXHAUSTED",
            "ResourceExhausted",
            "Resource exhausted",
        ),
        sig(r"\bran out of memory\b", 0.7, "out of memory", ignorecase=True),
    ),
    subtypes={
        "hbm": Subtype(
            "Program does not fit in TPU HBM",
            (
                "Compare the reported need with the limit: when the gap is large, shard or shrink "
                "the model before touching the batch size.",
            ),
        ),
        "runtime_allocation": Subtype(
            "Device buffer allocation failed",
            (
                "Free device arrays you no longer need (drop references, donate buffers with "
                "jax.jit(..., donate_argnums=...)) and check that nothing else uses the TPU.",
            ),
        ),
        "tensor_allocation": Subtype("Out of memory allocating a tensor"),
    },
    facts=_oom_facts,
    headline=_oom_headline,
)


_KERNEL = re.compile(r"(?:kernel|custom call) ['\"%]?([\w.\-]+)")


def _compile_facts(lines: list[str]) -> dict:
    facts: dict = {}
    for key, pattern in (
        ("memory_space", _SPACE),
        ("xla_error_code", _CODE),
        ("used_and_limit", re.compile(rf"(Used {_SIZE} of {_SIZE})")),
        ("kernel", _KERNEL),
    ):
        value = first_group([pattern], lines)
        if value:
            facts[key] = value
    return facts


def _compile_headline(facts: dict) -> str:
    return facts.get("used_and_limit", "")


COMPILE_ERROR = Category(
    id="compile_error",
    title="XLA compilation failed",
    explanation=(
        "The traced program could not be compiled: its shapes or types do not fit together, or the "
        "XLA compiler (or a Mosaic/Pallas kernel compiler) could not turn it into a TPU executable. "
        "The cause is in the program rather than in your data."
    ),
    fixes=(
        "Reduce the failing program to the smallest function that still fails (small model, "
        "in-memory data, no callbacks or custom layers) to find the construct that triggers it.",
        "Upgrade jax/jaxlib, libtpu or TensorFlow: internal compiler checks are often fixed in "
        "newer releases.",
        "Dump the compiler input (XLA_FLAGS=--xla_dump_to=/tmp/xla_dump) and attach it to a bug "
        "report on github.com/openxla/xla.",
    ),
    signatures=(
        sig(
            r"memory space vmem|space=vmem|\bE1001\b|scoped [Vv]mem",
            0.97,
            "vmem",
            "Vmem",
            "E1001",
            subtype="vmem",
        ),
        # Every line with "Mosaic" is scanned: only failure wording counts, not "using Mosaic kernels".
        sig(
            r"Mosaic failed to compile|MosaicError|Mosaic kernels? (?:cannot|can't|could not|failed|"
            r"(?:is|are) not)|Mosaic.{0,60}(?:[Ee]rror|[Ff]ailed|[Ff]ailure|not supported|[Uu]nimplemented)",
            0.9,
            "Mosaic",
            subtype="mosaic",
        ),
        sig(
            r"\bPallas\b.{0,80}(?:lowering|not supported|[Uu]nimplemented|failed)|"
            r"Unimplemented primitive in Pallas",
            0.88,
            "Pallas",
            subtype="mosaic",
        ),
        sig(r"\bE2\d{3}\b", 0.88, "E2", subtype="mosaic"),
        sig(
            r"\bE3\d{3}\b|exceeds the legitimate user allocatable offset",
            0.9,
            "E3",
            "allocatable offset",
            subtype="sparsecore",
        ),
        sig(r"\bE1200\b", 0.88, "E1200"),
        sig(r"RET_CHECK failure", 0.86, "RET_CHECK", subtype="internal"),
        sig(
            r"Computation requires more parameters \(\d+\) than supported",
            0.92,
            "more parameters",
            subtype="too_many_parameters",
        ),
        sig(r"XLA:TPU compile permanent error", 0.72, "compile permanent error"),
        sig(r"JIT compilation failed", 0.8, "JIT compilation failed"),
        # A crash (SIGABRT, SIGSEGV) inside the XLA compiler: its frames are in the stack dump.
        sig(
            r"\bTpuCompiler_\w+|\w*Compiler::(?:RunHloPasses|RunBackend|Compile)\b|"
            r"\bLocalService::CompileExecutables\b",
            0.7,
            "Compiler",
            "CompileExecutables",
            subtype="internal",
        ),
        # An error raised by the XRT / TPU compile op with no more specific wording elsewhere.
        sig(r"\{\{node (?:XRTCompile|TPUCompile)\w*\}\}", 0.62, "{{node XRTCompile", "{{node TPUCompile"),
        # TF's TPU compile op logs the failure at INFO level before the error surfaces.
        sig(r"Compilation of \d+ with session name.{0,60}\band failed", 0.75, "and failed"),
        # XLA:GPU handing a kernel to ptxas, which crashed or rejected it.
        sig(r"ptxas (?:exited with non-zero|fatal)", 0.8, "ptxas", subtype="internal"),
        sig(
            r"[Ii]nternal compiler error|LLVM ERROR", 0.7, "compiler error", "LLVM ERROR", subtype="internal"
        ),
        sig(
            r"Compilation failure|TPU compilation failed|[Ff]ailed to compile",
            0.55,
            "ompilation fail",
            "ailed to compile",
        ),
    ),
    subtypes={
        "shape_mismatch": Subtype(
            "Shapes in the program do not fit together",
            (
                "Print the shapes where it failed (jax.eval_shape, model.summary(), or the element_spec "
                "of the dataset) and compare them with what the layer or op expects.",
                "Check the model's declared input shape and any reshape target against the real batch "
                "(use -1 for the batch dimension instead of a fixed number).",
                "For a matmul / dot_general, check which axes are contracted: a missing transpose or a "
                "swapped feature axis is the usual cause.",
            ),
        ),
        "vmem": Subtype(
            "Kernel ran out of on-chip vector memory (vmem)",
            (
                "Make the kernel's block / tile sizes smaller so each step's working set fits in "
                "vmem (for Pallas: smaller BlockSpec blocks, fewer scratch buffers).",
                "If the kernel is XLA's own fusion, upgrade libtpu / jax and report the HLO: vmem "
                "overflow in a compiler-generated fusion is a compiler bug.",
            ),
        ),
        "mosaic": Subtype(
            "Mosaic / Pallas kernel failed to compile",
            (
                "Align block shapes with the TPU tiling (last two dims multiples of 8 and 128, or "
                "the full array size) and cast matmul operands to bfloat16/float32.",
                "Run Pallas kernels under shard_map when the surrounding program is sharded.",
            ),
        ),
        "sparsecore": Subtype("SparseCore program allocation failed"),
        "internal": Subtype("XLA internal check failed"),
        "too_many_parameters": Subtype(
            "Program has more parameters than the TPU supports",
            (
                "Pack many small tensors into fewer large ones (for example flatten the parameter "
                "tree or concatenate small weights) so the computation takes fewer arguments.",
            ),
        ),
    },
    facts=_compile_facts,
    headline=_compile_headline,
)
