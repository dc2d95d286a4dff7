"""The vocabulary of each category: words an error message uses for that kind of problem.

These are meanings, not sentences: "allocate" and "hbm" speak of memory, "dtype" and "int64" of
types, "restore" of checkpoints, whatever the exact wording around them. They are matched in the
messages of the exceptions (lower-cased), never in file paths or ordinary log lines, and each
category's matches add up to one weak signal (see :mod:`..features`).
"""

from __future__ import annotations

import re

_WORDS: dict[str, tuple[tuple[str, float], ...]] = {
    "oom": (
        (r"out of memory|\boom\b|ran out of|not enough memory|insufficient memory", 1.0),
        (r"\bhbm\b|memory space|\bvmem\b", 0.6),
        (r"\ballocat\w*", 0.5),
        (r"(?:unable|failed|cannot|could not|can't) (?:to )?allocate", 0.8),
        # not gRPC's message-size limit nor a cloud quota, which use the same status
        (
            r"resource_exhausted(?!.{0,160}(?:larger than|quota|rate limit|capacity in the zone))|"
            r"resource exhausted(?!.{0,160}(?:larger than|quota|rate limit|capacity in the zone))",
            0.8,
        ),
        (r"\bexceed\w* .{0,30}(?:memory|capacity)|memory .{0,20}exceed", 0.6),
    ),
    "dynamic_shape": (
        (r"\bdynamic\b|data-dependent|data dependent|unknown (?:shape|size|rank|dimension)", 0.7),
        (r"\btrac(?:er|ed)\b|abstract (?:value|tracer)|concrete|concretiz", 0.8),
        (r"static_arg|statically|static (?:shape|size|value)|compile[- ]time constant", 0.6),
        (r"boolean (?:indices|mask|index)|\bnonzero\b|\bunique\b|\bwhere\b.{0,30}size", 0.5),
        (r"partial batch|drop_remainder|last batch|variable (?:length|size)|polymorphi", 0.7),
        (r"must have a fixed|fixed size|fully[- ]defined|\bnone\b.{0,12}dimensions?|symbolic dimension", 0.9),
        # a loop whose state changes shape from one iteration to the next
        (
            r"(?:carry|loop|while_loop|fori_loop|scan)\b.{0,300}shapes? (?:do not|don't|does not) match|"
            r"shapes? of loop body|loop-carried|shape invariant",
            1.0,
        ),
        (r"(?:not |in)divisible|divide evenly|evenly divisible|partitioned \d+ times", 0.5),
    ),
    "unsupported_op": (
        (r"no registered|no kernel|opkernel|not (?:yet )?(?:implemented|supported) (?:on|for|by)", 0.9),
        (r"lowering|translation rule|no (?:xla )?lowering|not lowered", 0.7),
        (r"unsupported op|unsupported operation|operation .{0,40}not supported|op .{0,30}not supported", 0.9),
        (
            r"only (?:implemented|supported|available) (?:on|for)|interpret(?:=true| mode)|"
            r"\bcudnn\b|\bcuda\b",
            0.5,
        ),
        (r"py_?func|tf\.print|string ops?|outside_compilation|host callback|pure_callback", 0.4),
        # (not a file system: "File system scheme 'gs' not implemented" is a build without GCS)
        (r"^(?!.*file system scheme).*?(?:unimplemented|not implemented)", 0.5),
    ),
    "unsupported_dtype": (
        (r"\bdtypes?\b|data ?types?\b|element type|\btype (?:\w+ )?(?:is )?not (?:supported|allowed)", 0.8),
        (
            r"\b(?:u?int(?:8|16|32|64)|float(?:16|32|64)|double|complex(?:64|128)?|bfloat16|string|"
            r"bool|boolean|integer|s64|u8|f64|c64|c128|str\d*|dt_[a-z0-9]+)\b",
            0.4,
        ),
        (
            r"expected to be an? \w+ tensor|cast \w+ to \w+|abstract array|"
            r"requires? (?:real|integer|float|complex)|integer or boolean|out of bounds for u?int",
            0.8,
        ),
        # torch: "'addmm_impl_cpu_' not implemented for 'Half'", "expected scalar type Float but found
        # Double"; TF / JAX: "Expected int32, got 0.5 of type 'float' instead", "not a valid JAX type"
        (
            r"not implemented for '\w+'|scalar type \w+ but found \w+|expected (?:an? )?(?:u?int|float|bool|"
            r"complex|double|half)\w*,? (?:got|but)|not a valid (?:jax|xla) (?:array )?type|"
            r"only supports number",
            0.8,
        ),
        (r"\bcast\b|convert .{0,30}(?:type|tensor)|failed to convert|cannot convert|could not convert", 0.5),
        (r"x64|jax_enable_x64|truncat\w* to|64-bit", 0.6),
        (
            r"(?:not|doesn't|does not) match type|expected .{0,20}(?:dtype|type) .{0,40}got|"
            r"incompatible (?:dtype|type)s?|mismatched (?:dtype|type)s?|(?:dtype|type) mismatch",
            0.7,
        ),
    ),
    "connection_loss": (
        (
            r"(?:failed|unable|could not|couldn't) (?:to )?connect|connection (?:refused|reset|closed|lost|"
            r"aborted|timed out|error)|socket closed|unreachable|network is|lost connection|disconnected",
            0.9,
        ),
        # gRPC and peers are named in every remote error, lost or not: weak on their own
        (r"\bgrpc\b|\brpc\b|\bpeers?\b|\bsocket\b|\bconnect\w*", 0.3),
        (r"unavailable|deadline|timed? ?out|heartbeat|barrier", 0.7),
        (
            r"preempt\w*|coordinat\w*|worker .{0,30}(?:restart|died|lost|gone|failed)|"
            r"lost .{0,20}(?:worker|task)",
            0.8,
        ),
        (
            r"already in use|in use by|device or resource busy|failed to initiali[sz]e|"
            r"unable to initiali[sz]e",
            0.6,
        ),
        (r"halted|shut ?down|terminat\w*|abort\w*|\bcrash\w*", 0.4),
        (
            r"rendezvous|may be stuck|not all of them arrived|waiting for .{0,40}(?:peers?|"
            r"tasks?|workers?|processes)",
            0.7,
        ),
        (
            r"tpu initiali[sz]ation failed|slice ?builder|topology|closed by peer|"
            r"\bslice\b.{0,30}(?:unhealthy|down)",
            0.7,
        ),
    ),
    "local_filesystem": (
        (r"\[local\]|local (?:file ?system|path|disk)", 1.0),
        # storage a TPU job cannot use without extra file systems
        (r"\b(?:hdfs|s3|s3a|az|abfs|abfss|wasbs?|gcs|oss|ftp)://", 0.6),
        (
            r"file ?system scheme|file ?system for scheme|(?:uri|url|path) scheme|"
            r"scheme '?[\w+.\-]+'? (?:is )?not",
            0.9,
        ),
        (r"gs://|cloud storage|bucket", 0.2),
    ),
    "strategy_scope": (
        (r"\bscope\b|strategy", 0.9),
        (r"replica|cross-replica|merge_call|mirrored|distributed variable", 0.7),
        (r"\bmesh\b|sharding|partitionspec|named ?sharding|device_put|pmap|axis name", 0.4),
        # a collective called outside the replicated context it needs (a bad axis name or spec is the
        # program's own error, see compile_error)
        (r"outside (?:of )?(?:a )?(?:pmap|shard_map|replica context)", 0.8),
        (r"with mesh|mesh context|context mesh|non-empty mesh|set_mesh|inside (?:a |the )?`?with", 0.8),
        # arrays or tensors on devices the computation does not run on
        (
            r"found at least two devices|incompatible devices|not fully addressable|committed to device|"
            r"is not an? (?:xla|tpu) tensor|(?:on|to) (?:a )?different devices?|on the same device",
            0.7,
        ),
        (
            r"(?:different|other|another|same) (?:device|strategy|mesh)|mix(?:ing|"
            r"ed) .{0,20}(?:strateg|device|mesh)",
            0.6,
        ),
        (r"created (?:outside|under|in|not in)|placement|on the same device", 0.5),
    ),
    "input_pipeline": (
        (r"\bdatasets?\b|\biterators?\b|data ?loader|data adapter|generator", 0.8),
        (
            r"end of (?:sequence|input|data)|ran out of data|out of range|(?<!resource[_ ])exhausted|"
            r"stopiteration|no more",
            0.8,
        ),
        (r"\bbatch(?:es|ing|ed)?\b|cardinality|\bshuffle\b|\brepeat\(|steps_per_epoch|prefetch", 0.5),
        (
            r"\brecords?\b|tfrecord|parse_?(?:single_)?example|decode|\bfeatures?\b.{0,20}(?:spec|key)|"
            r"input[ _](?:function|fn|data|producer)|\bx=|\by=|features, labels",
            0.4,
        ),
        (
            r"cannot batch|at entry \d+|collate|is required but could not be found|data cardinality|"
            r"unrecognized data type|element_spec|output_signature|yielded an element",
            0.8,
        ),
        (r"no such file|not found|does not exist|cannot open|could not open|failed to open", 0.3),
    ),
    "checkpoint": (
        # (file endings, not module names: "keras._tf_keras.keras.layers" is no saved model)
        (
            r"checkpoint|\bckpt\b|orbax|state_dict|saved ?model|(?<=\w)\.(?:h5|keras|msgpack)(?![\w.])|"
            r"safetensors",
            1.0,
        ),
        (
            r"\brestor\w*|\bsav(?:e|ed|ing)\b|\bload(?:ing|ed)? (?:the )?(?:weights|model|state)|"
            r"weights? file",
            0.7,
        ),
        (
            r"\bweights?\b.{0,40}(?:mismatch|expects|shape|layer)|layer count|(?:missing|unexpected) keys?",
            0.5,
        ),
        (
            r"tree structures? (?:do not|don't) match|pytree structure|\bmetadata\b|\bstep \d+\b.{0,40}exist",
            0.5,
        ),
        (r"permission|forbidden|\b403\b|access denied|write access|storage\.objects", 0.5),
        (r"unable to (?:synchronously )?open (?:file|object)|file signature not found|hdf5|\bh5py\b", 0.6),
        (
            r"zip archive|pytorchstreamreader|invalid load key|unpickl\w*|(?<=\w)\.(?:ckpt|pt|bin)(?![\w.])",
            0.6,
        ),
        (r"no such file|not found|does not exist|already exists|\bcorrupt\w*|truncated|magic number", 0.3),
    ),
    "compile_error": (
        (r"\bshapes?\b|\bdimensions?\b|\brank\b|\baxis\b|\bndim\b", 0.5),
        (
            # of shapes, not of types (a type mismatch is a dtype problem)
            r"(?:shapes?|dimensions?|rank|sizes?|axis|axes)\b.{0,40}(?:incompatible|mismatch|"
            r"must (?:be equal|match)|"
            r"not (?:compatible|equal)|(?:doesn't|does not) match)|(?:incompatible|"
            r"mismatched) (?:shapes?|dimensions?|"
            r"ranks?|sizes?)|cannot (?:be )?broadcast|expected .{0,30}(?:shape|dimension|rank|"
            r"ndim|axis).{0,40}"
            r"(?:but|got|received)",
            0.6,
        ),
        # (words, not identifiers: "compiled_test_step" is a function's name)
        (r"\bcompil(?:e|ed|er|ing|ation)\b(?!_)|\bhlo\b|\bxla\b|\bmlir\b|\bjit\b|\blowering\b", 0.4),
        (r"reshape|dot_general|matmul|contracting|broadcast|concatenat\w*|einsum|conv\w*", 0.4),
        (
            r"internal (?:compiler )?error|ret_check|check fail(?:ed|ure)|verifier|"
            r"invalid (?:hlo|program)|_emitter",
            0.6,
        ),
        (r"\b(?:stable|v)hlo\b|bytecode|\bptx\b|llvm", 0.6),
        (r"leaked|escaped tracer|outside of (?:its|the) (?:trace|transformation)", 0.7),
        # static arguments that cannot be hashed; named axes and sharding specs that do not exist
        (r"unhashable|non-hashable|unbound axis name|not found in (?:the )?mesh|out_specs|in_specs", 0.8),
        # vmap's check that every mapped argument has the same batch size
        (r"inconsistent sizes for array axes", 0.7),
    ),
    "nan_inf": (
        # (not Keras' "val_loss did not improve from inf": the best value starts at infinity)
        (r"\bnan\b|(?<!from )\binf\b|infinite|infinity|non-finite|not finite", 1.0),
        (r"numerics|diverg\w*|invalid value|invalid loss", 0.7),
        (r"overflow", 0.3),
    ),
}

WORDS: dict[str, tuple[tuple[re.Pattern, float], ...]] = {
    category: tuple((re.compile(pattern), strength) for pattern, strength in entries)
    for category, entries in _WORDS.items()
}
