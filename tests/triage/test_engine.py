"""The engine: categories, evidence, facts, root-error choice, streaming and speed guards."""

from __future__ import annotations

import pytest

from tpuwatch.server.triage.engine import Classifier, classify_text
from tpuwatch.server.triage.knowledge import CATEGORIES
from tpuwatch.server.triage.scan import SCAN_KEYS

from . import logs


@pytest.mark.parametrize(
    ("text", "category", "quote"), logs.CASES, ids=[f"{c}-{i}" for i, (_, c, _) in enumerate(logs.CASES)]
)
def test_each_category_is_recognised_with_its_evidence_line(text, category, quote):
    cards = classify_text(text)
    assert cards, "expected a card"
    card = cards[0]
    assert card.category == category
    assert quote in card.evidence
    # The evidence is quoted from the log, and `line` points at it (1-based).
    assert card.evidence in text.splitlines()[card.line - 1]
    assert card.confidence >= 0.5
    assert card.fixes and all(isinstance(f, str) and f for f in card.fixes)
    assert card.explanation == CATEGORIES[category].explanation


def test_unknown_error_gives_no_card():
    assert classify_text(logs.UNKNOWN) == []
    assert classify_text("") == []
    assert classify_text(logs.STEPS) == []


def test_oom_card_extracts_hbm_use_and_user_frame():
    card = classify_text(logs.OOM_JAX)[0]
    assert card.subtype == "hbm"
    assert card.facts["hbm_used"] == "18.31G"
    assert card.facts["hbm_limit"] == "15.48G"
    assert card.facts["exceeded_by"] == "2.83G"
    assert card.facts["user_frame"] == "/home/me/proj/train.py:141"
    assert "18.31G" in card.title and "15.48G" in card.title


def test_facts_name_the_op_the_dtype_the_dimension_and_the_path():
    assert classify_text(logs.UNSUPPORTED_OP_TF)[0].facts["op"] == "ImageProjectiveTransformV3"
    assert classify_text(logs.UNSUPPORTED_OP_TF)[0].facts["device"] == "XLA_TPU_JIT"
    assert classify_text(logs.UNSUPPORTED_DTYPE_JAX)[0].facts["dtype"] == "F64"
    dyn = classify_text(logs.DYNAMIC_TF)[0]
    assert dyn.facts["dimension"] == "0"
    assert dyn.facts["user_frame"] == "model_main.py:77"
    local = classify_text(logs.LOCAL_FS)[0]
    assert local.facts["path"] == "/home/me/data/train-00001-of-00064.tfrecord"
    conn = classify_text(logs.CONNECTION_TF)[0]
    assert conn.facts["peer"] == "ipv4:10.128.0.7:8470"


def test_runtime_oom_reports_request_and_free_memory():
    card = classify_text(logs.OOM_TF_RUNTIME)[0]
    assert card.subtype == "runtime_allocation"
    assert card.facts["requested"] == "5.10G"
    assert card.facts["free"] == "3.20G"
    # The glog warning comes first and says the same thing: it is the evidence, not the echo.
    assert card.line == 21
    assert card.facts["occurrences"] == 2


def test_root_error_wins_over_the_peers_that_lost_it():
    # Worker 0 runs out of memory; afterwards its peers report the lost connection.
    text = logs.OOM_JAX + (
        "E0221 12:00:30.000000 140001 coordination_service_agent.cc:332] UNAVAILABLE: failed to "
        "connect to all addresses; last error: ipv4:10.0.0.2:8476: Connection refused\n"
    )
    cards = classify_text(text)
    assert [c.category for c in cards] == ["oom", "connection_loss"]


def test_chained_exception_keeps_the_cause_first():
    text = """\
Traceback (most recent call last):
  File "/home/me/data.py", line 10, in batches
    yield next(it)
tensorflow.python.framework.errors_impl.OutOfRangeError: End of sequence

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/home/me/train.py", line 50, in <module>
    run()
RuntimeError: UNAVAILABLE: Socket closed while shutting down
"""
    cards = classify_text(text)
    assert cards[0].category == "input_pipeline"
    assert cards[0].line == 4
    assert cards[0].facts["user_frame"] == "/home/me/data.py:10"
    assert cards[1].category == "connection_loss"
    assert cards[1].confidence < cards[0].confidence


def test_direct_cause_chain_from_jax_is_read_through():
    text = """\
jax.errors.SimplifiedTraceback: For simplicity, JAX has removed its internal frames from the \
traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include these.

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/home/me/run.py", line 9, in <module>
    out = step(params, x)
jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate \
8589934592 bytes.
"""
    card = classify_text(text)[0]
    assert card.category == "oom"
    assert card.facts["requested_bytes"] == "8589934592"
    assert card.facts["user_frame"] == "/home/me/run.py:9"


def test_tf_error_recorded_then_reraised_points_at_the_first_report():
    text = """\
INFO:tensorflow:Error recorded from training_loop: File system scheme '[local]' not implemented \
(file: '/tmp/model/model.ckpt-0_temp')
INFO:tensorflow:training_loop marked as finished
WARNING:tensorflow:Reraising captured error
Traceback (most recent call last):
  File "bert_pretrain.py", line 400, in <module>
    tf.app.run()
tensorflow.python.framework.errors_impl.UnimplementedError: File system scheme '[local]' not \
implemented (file: '/tmp/model/model.ckpt-0_temp')
"""
    card = classify_text(text)[0]
    assert card.category == "local_filesystem"
    assert card.line == 1
    assert card.facts["path"] == "/tmp/model/model.ckpt-0_temp"


def test_glog_lines_interleaved_with_a_traceback():
    text = """\
Traceback (most recent call last):
W0221 12:00:00.100000 140002 grpc_util.cc:40] keepalive ping sent
  File "/home/me/train.py", line 88, in <module>
I0221 12:00:00.200000 140003 checkpoints.py:10] flushing writer
    loss = train_step(batch)
E0221 12:00:00.300000 140002 tpu_compile.cc:90] TPU compilation failed
ValueError: shape [?,128] must have a fixed size for dimension 0 that is known at graph \
construction time.
"""
    card = classify_text(text)[0]
    assert card.category == "dynamic_shape"
    assert card.line == 7
    assert card.facts["user_frame"] == "/home/me/train.py:88"


def test_specific_vmem_message_is_a_compile_error_not_an_oom():
    cards = classify_text(logs.COMPILE_VMEM)
    assert cards[0].category == "compile_error"
    assert cards[0].subtype == "vmem"
    assert all(c.category != "oom" for c in cards)


def test_kernel_found_for_other_dtypes_is_a_dtype_problem():
    text = """\
NotFoundError: No registered 'Identity' OpKernel for TPU devices compatible with node {{node Id}}
\t (OpKernel was found, but attributes didn't match) Requested Attributes: T=DT_STRING
"""
    card = classify_text(text)[0]
    assert card.category == "unsupported_dtype"
    assert card.facts["dtype"] == "DT_STRING"


def test_xla_error_code_alone_names_the_category():
    text = "JaxRuntimeError: RESOURCE_EXHAUSTED: E1000: CompileTimeHbmOom: program too big\n"
    card = classify_text(text)[0]
    assert (card.category, card.subtype, card.facts["xla_error_code"]) == ("oom", "hbm", "E1000")


def test_weak_generic_words_do_not_make_a_card():
    # "Error" and a retry warning on their own say nothing about the category.
    assert classify_text("ERROR: something went wrong in the evaluator\n") == []
    assert classify_text("RuntimeError: grpc_status 3 from peer: Unable to parse proto\n") == []


def test_context_makes_the_first_fix_concrete():
    card = classify_text(logs.OOM_JAX, {"global_batch_size": 1024, "replicas": 8})[0]
    assert card.fixes[0] == "The global batch is 1024: try 512 (64 per core) first."
    dyn = classify_text(logs.DYNAMIC_TF, {"global_batch_size": 256})[0]
    assert "dataset.batch(256, drop_remainder=True)" in dyn.fixes[0]


def test_streaming_by_lines_and_by_odd_blocks_gives_the_same_cards():
    text = logs.STEPS * 50 + logs.NAN_TF + logs.STEPS * 50
    whole = [c.to_dict() for c in classify_text(text)]
    by_line = Classifier()
    by_line.feed_lines(text.splitlines())
    by_block = Classifier()
    for i in range(0, len(text), 333):  # cuts lines in the middle
        by_block.feed_text(text[i : i + 333])
    assert [c.to_dict() for c in by_line.cards()] == whole
    assert [c.to_dict() for c in by_block.cards()] == whole
    assert whole[0]["category"] == "nan_inf"
    assert by_block.lines_seen == text.count("\n")


def test_last_line_without_newline_is_classified():
    card = classify_text("step 1\nTypeError: DataType int64 is not a supported TPU infeed type.")[0]
    assert (card.category, card.line) == ("unsupported_dtype", 2)


def test_long_line_evidence_is_a_window_quoted_from_it():
    line = "x" * 5000 + " OOM when allocating tensor with shape[8,1024] " + "y" * 5000
    card = classify_text(line)[0]
    assert card.category == "oom"
    assert card.evidence in line
    assert "OOM when allocating" in card.evidence
    assert len(card.evidence) <= 400


def test_every_signature_anchor_is_reachable_by_the_scan():
    # A signature is only tried on lines the scan finds; its anchors must contain a scan key
    # or sit on lines that carry one (the E#### codes ride on RESOURCE_EXHAUSTED / ...Error).
    for cat in CATEGORIES.values():
        for signature in cat.signatures:
            assert signature.anchors
            for anchor in signature.anchors:
                assert signature.pattern.pattern  # compiled
                assert anchor.strip(), (cat.id, signature.regex)
    assert "rror" in SCAN_KEYS and "File " in SCAN_KEYS


def test_card_to_dict_has_the_wire_keys():
    card = classify_text(logs.INPUT)[0]
    data = card.to_dict()
    assert list(data)[:8] == [
        "category",
        "subtype",
        "title",
        "confidence",
        "evidence",
        "line",
        "explanation",
        "fixes",
    ]
    assert data["facts"]["node"] == "IteratorGetNext"
    assert "facts" not in card.to_dict(facts=False)


def test_resource_exhausted_that_is_not_memory_is_not_an_oom():
    grpc_limit = (
        "grpc._channel._InactiveRpcError: status = StatusCode.RESOURCE_EXHAUSTED "
        'details = "Received message larger than max (8388700 vs. 4194304)"\n'
    )
    assert [c.category for c in classify_text(grpc_limit)] == []


def test_tpuwatch_own_lines_are_never_evidence():
    own = "tpuwatch: metrics endpoint localhost:8431 unavailable (connection refused), will retry\n"
    assert classify_text(own * 3) == []
    cards = classify_text(own + logs.OOM_JAX + own)
    assert cards[0].category == "oom"
    assert all("tpuwatch:" not in card.evidence for card in cards)


def test_tpu_held_by_another_process_is_a_busy_tpu():
    text = (
        "RuntimeError: Unable to initialize backend 'tpu': ABORTED: The TPU is already in use by process "
        "with pid 31337. Not attempting to load libtpu.so in this process.\n"
    )
    card = classify_text(text)[0]
    assert (card.category, card.subtype) == ("connection_loss", "tpu_busy")
    assert "lsof" in card.fixes[0]


def test_halted_core_is_a_lost_tpu_that_needs_a_restart():
    text = (
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Core halted unexpectedly: INTERNAL: Accelerator "
        "device halted prematurely, perhaps due to an on-device check-failure. Node 0 halted unexpectedly "
        "at tag:pc TensorCoreSequencer:1:0x2b1 (from TensorCoreSequencer:1:0x3f0)\n"
    )
    card = classify_text(text)[0]
    assert (card.category, card.subtype) == ("connection_loss", "tpu_halted")


def test_cards_list_the_signals_that_led_to_them():
    card = classify_text(logs.OOM_JAX)[0]
    assert card.facts["signals"] and any("signature" in s for s in card.facts["signals"])
