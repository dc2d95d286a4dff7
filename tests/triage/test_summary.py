"""The line that says what happened: what alerts, unknown groups and cards quote."""

from __future__ import annotations

from tests.triage.test_structure import TF_GRAPH_ERROR
from tpuwatch.server.triage.engine import classify_text
from tpuwatch.server.triage.summary import is_preamble, summary_line

KERAS3_CALL = """\
Traceback (most recent call last):
  File "/home/me/build.py", line 4, in <module>
    model = keras.Sequential([keras.Input((64,)), keras.layers.Dense(256), keras.layers.Reshape((128, 3))])
ValueError: Exception encountered when calling Reshape.call().

\x1b[1mThe total size of the tensor must be unchanged. Received: input_shape=(256,), target=(12, 3)\x1b[0m

Arguments received by Reshape.call():
  \u2022 args=('<KerasTensor shape=(None, 256), dtype=float32, sparse=False, name=keras_tensor_1>',)
"""


def test_graph_execution_error_is_summarised_by_its_message_not_its_preamble():
    line = summary_line(TF_GRAPH_ERROR)
    assert line == "Input to reshape is a tensor with 9216 values, but the requested shape has 18432"


def test_keras3_call_error_is_summarised_by_the_reason():
    assert summary_line(KERAS3_CALL).startswith("The total size of the tensor must be unchanged.")


def test_plain_exception_is_summarised_by_its_own_line():
    text = "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nKeyError: 'labels'\n"
    assert summary_line(text) == "KeyError: 'labels'"


def test_summary_skips_tpuwatch_own_lines():
    text = "tpuwatch: metrics endpoint localhost:8431 unavailable\nRuntimeError: loader crashed\n"
    assert summary_line(text) == "RuntimeError: loader crashed"
    assert summary_line("tpuwatch: metrics endpoint localhost:8431 unavailable\n") == ""


def test_glog_error_without_exception_is_its_own_summary():
    text = "I0101 00:00:00.0 1 a.cc:1] starting\nE0101 00:00:01.0 1 b.cc:2] Check failed: ptr != nullptr\n"
    assert summary_line(text) == "Check failed: ptr != nullptr"


def test_preambles_are_recognised():
    for line in (
        "Graph execution error:",
        "tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:",
        "2 root error(s) found.",
        "Traceback (most recent call last):",
        'File "/x.py", line 3, in f',
    ):
        assert is_preamble(line), line
    assert not is_preamble("Input to reshape is a tensor with 64 values, but the requested shape has 512")


def test_the_card_quotes_the_reshape_line_not_the_traceback():
    card = classify_text(TF_GRAPH_ERROR)[0]
    assert card.evidence.startswith("Input to reshape is a tensor with 9216 values")
    assert TF_GRAPH_ERROR.splitlines()[card.line - 1].strip() == card.evidence
