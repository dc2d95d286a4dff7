"""The structural parse: exceptions, chains, frames, status codes and ops, in the frameworks' formats."""

from __future__ import annotations

from tpuwatch.server.triage.structure import is_own_line, op_type, parse

TF_GRAPH_ERROR = """\
Epoch 1/3
 12/40 [=====>........] - ETA: 3s - loss: 0.61
Traceback (most recent call last):
  File "/home/me/train.py", line 40, in <module>
    model.fit(ds, epochs=3)
  File "/venv/lib/python3.11/site-packages/keras/src/utils/traceback_utils.py", line 122, in error_handler
    raise e.with_traceback(filtered_tb) from None
tensorflow.python.framework.errors_impl.InvalidArgumentError: Graph execution error:

Detected at node sequential/flatten/Reshape defined at (most recent call last):
  File "/home/me/train.py", line 40, in <module>

  File "/venv/lib/python3.11/site-packages/keras/src/layers/reshaping/flatten.py", line 54, in call

Input to reshape is a tensor with 9216 values, but the requested shape has 18432
\t [[{{node sequential/flatten/Reshape}}]] [Op:__inference_one_step_on_iterator_2210]
"""

ORBAX_CHAIN = """\
Traceback (most recent call last):
  File "/venv/lib/python3.10/site-packages/orbax/checkpoint/_src/handlers/pytree_checkpoint_handler.py", \
line 801, in restore
    raise ValueError(msg)
ValueError: Restore target and saved metadata disagree on the tree layout

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/home/me/resume.py", line 18, in load_state
    state = manager.restore(step)
RuntimeError: could not resume the run
"""


def test_graph_execution_error_keeps_the_message_after_the_detected_at_frames():
    doc = parse(TF_GRAPH_ERROR)
    exc = doc.final
    assert exc.name == "InvalidArgumentError"
    assert exc.module == "tensorflow.python.framework.errors_impl"
    assert "Input to reshape is a tensor with 9216 values, but the requested shape has 18432" in exc.message
    assert "INVALID_ARGUMENT" in doc.statuses
    assert "Reshape" in doc.nodes
    assert doc.framework == "keras"


def test_chained_exceptions_know_the_cause_and_its_frames():
    doc = parse(ORBAX_CHAIN)
    assert [e.name for e in doc.exceptions] == ["ValueError", "RuntimeError"]
    assert doc.exceptions[1].chained == "cause"
    assert doc.root.name == "ValueError"
    assert doc.root.frames[0].package == "orbax"
    assert doc.final.frames[0].package == ""  # the user's own file


def test_autograph_in_user_code_exposes_the_inner_exception():
    text = (
        "ValueError: in user code:\n\n"
        '    File "/home/me/model.py", line 3, in f  *\n'
        "        return tf.reshape(x, [-1, 7])\n\n"
        "    ValueError: Dimension size must be evenly divisible by 7 but is 16 for '{{node Reshape}} = "
        "Reshape[T=DT_FLOAT, Tshape=DT_INT32](x, Reshape/shape)' with input shapes: [4,4], [2].\n"
    )
    doc = parse(text)
    assert doc.final.message[0].startswith("Dimension size must be evenly divisible by 7")
    assert doc.nodes == ["Reshape"]


def test_ipython_header_names_the_class_when_the_message_is_cut():
    doc = parse(
        "OutOfRangeError                           Traceback (most recent call last)\n<ipython-input-3>\n"
    )
    assert doc.header_classes == ["OutOfRangeError"]


def test_status_words_of_old_tensorflow_and_xla_codes_are_found():
    doc = parse("  (0) Resource exhausted: E1000: program needs 20G\n")
    assert doc.statuses == ["RESOURCE_EXHAUSTED"]
    assert doc.xla_codes == ["E1000"]


def test_jax_filter_note_is_not_an_exception():
    text = (
        "jax.errors.SimplifiedTraceback: For simplicity, JAX has removed its internal frames.\n\n"
        "The above exception was the direct cause of the following exception:\n\n"
        "jax.errors.ConcretizationTypeError: Abstract tracer value encountered where concrete value is "
        "expected\n"
    )
    assert [e.name for e in parse(text).exceptions] == ["ConcretizationTypeError"]


def test_tpuwatch_agent_lines_are_not_part_of_the_error():
    text = "tpuwatch: metrics server localhost:8431 unavailable, will retry\nValueError: bad input\n"
    doc = parse(text)
    assert is_own_line(text.splitlines()[0])
    assert all("tpuwatch" not in line for _, line in doc.lines)


def test_op_type_drops_scopes_and_numbering():
    assert op_type("model/reshape/Reshape_1") == "Reshape"
    assert op_type("IteratorGetNext:1") == "IteratorGetNext"
