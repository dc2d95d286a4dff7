"""The error is read where a log puts it: one test per shape of log, with real output.

``shapes/captured.jsonl`` holds what JAX, TensorFlow and Keras printed on the CPU for one mistake
each (``shapes/capture.py`` makes them again): the message behind JAX's traceback-filtering notice,
a JAX transformation chain, Python's "direct cause" and "During handling of" chains, Keras'
"Graph execution error:", TF's ``{{node ...}}`` wrapper, Keras 3 on JAX, a tf.data function of the
wrong arity, a loop that prints its own ``loss inf``. Multi-process launchers re-tag those same lines
per rank. PyTorch/XLA and libtpu cannot run here: their cases are written in the formats their
sources print (the dispatcher's "Could not run", PJRT's StatusOr, glog's ``F`` lines).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tpuwatch.server.triage.engine import classify_text

CAPTURED = Path(__file__).with_name("shapes") / "captured.jsonl"
ROWS = [json.loads(line) for line in CAPTURED.read_text().splitlines() if line.strip()]


def _category(text: str) -> str:
    cards = classify_text(text)
    return cards[0].category if cards else "unknown"


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_each_shape_of_real_output_gets_its_label_and_quotes_its_line(row):
    cards = classify_text(row["text"])
    assert cards, f"{row['id']}: no card"
    card = cards[0]
    assert card.category == row["label"], (row["id"], card.category, card.evidence)
    # The card's line number is the log's own (1-based) numbering of the line it quotes.
    quoted = row["text"].splitlines()[card.line - 1]
    assert card.evidence[:40].split(": ", 1)[-1][:30] in quoted, (card.line, quoted, card.evidence)


def test_the_cause_behind_a_chain_decides_not_the_wrapper():
    row = next(r for r in ROWS if r["id"] == "python_raise_from")
    assert "The above exception was the direct cause" in row["text"]
    assert "RuntimeError: training stopped" in row["text"]
    assert _category(row["text"]) == "input_pipeline"
    row = next(r for r in ROWS if r["id"] == "python_during_handling")
    assert "During handling of the above exception" in row["text"] and "NameError" in row["text"]
    assert _category(row["text"]) == "strategy_scope"


@pytest.mark.parametrize(
    "tag",
    ["[rank{r}]: ", "[default{r}]:", "[1,{r}]<stderr>:", "[worker-{r}] "],
    ids=["torchrun", "elastic", "mpi", "host"],
)
@pytest.mark.parametrize("shape", ["jax_notice_after_message", "tfdata_map_arity", "keras_on_jax"])
def test_every_rank_printing_the_same_error_reads_as_one(tag, shape):
    row = next(r for r in ROWS if r["id"] == shape)
    lines = row["text"].splitlines()
    # Two ranks, their lines interleaved as a launcher merges them.
    merged = "".join(tag.format(r=rank) + line + "\n" for line in lines for rank in (0, 1))
    assert _category(merged) == row["label"]


@pytest.mark.parametrize(
    ("text", "category"),
    [
        # PyTorch's dispatcher for an aten op that has no XLA kernel.
        (
            "NotImplementedError: Could not run 'aten::_linalg_eigh' with arguments from the 'XLA' backend. "
            "This could be because the operator doesn't exist for this backend, or was omitted during the "
            "selective/custom build process (if using custom build).\n",
            "unsupported_op",
        ),
        # A PJRT status wrapped by torch_xla's StatusOr.
        (
            'Traceback (most recent call last):\n  File "train.py", line 40, in <module>\n'
            "    xm.mark_step()\nRuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error allocating "
            "device buffer: Attempting to allocate 3.00G. That was not possible. There are 1.50G free.\n",
            "oom",
        ),
        # glog fatal lines (F<mmdd> <time> <thread> <file>:<line>]) about the chips and their links.
        (
            "I1127 10:00:00.000000  2345 tpu_hal.cc:200] Opening 4 chips\n"
            "F1127 10:00:03.000000  2345 ici_topology.cc:88] Check failed: link_up ICI link 3 is down\n"
            "*** Check failure stack trace: ***\n",
            "connection_loss",
        ),
        (
            "F1127 10:00:03.000000  2345 tpu_allocator.cc:311] Check failed: ptr != nullptr HBM "
            "allocation of 2147483648 bytes failed\n",
            "oom",
        ),
        # XNNPACK on the CPU backend, in its own words.
        (
            "Error in xnn_create_fully_connected_nc_f32: failed to allocate 4294967296 bytes for fully "
            "connected operator descriptor\nXlaRuntimeError: INTERNAL: XNNPACK allocation failed\n",
            "oom",
        ),
    ],
    ids=["aten-no-xla-kernel", "pjrt-statusor", "glog-fatal-ici", "glog-fatal-hbm", "xnnpack"],
)
def test_runtime_formats_that_cannot_run_here(text, category):
    assert _category(text) == category


def test_a_users_plain_bug_under_jit_stays_unknown():
    text = (
        'Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n'
        "TypeError: loss_fn() missing 1 required positional argument: 'labels'\n--------------------\n"
        "For simplicity, JAX has removed its internal frames from the traceback of the following exception. "
        "Set JAX_TRACEBACK_FILTERING=off to include these.\n"
    )
    assert _category(text) == "unknown"
