"""A card is a claim: the scorer names a category only on corroborated, specific evidence."""

from __future__ import annotations

from tpuwatch.server.triage.engine import classify_text
from tpuwatch.server.triage.features import Evidence
from tpuwatch.server.triage.scorer import Model, corroborated, decide, model

# A JAX step that fails at run time with the runtime's generic class and status: "jit" and "XLA"
# are in the message, as they are in nearly every JAX error, but nothing of the compiler's own.
GENERIC_XLA_RUNTIME = """\
Traceback (most recent call last):
  File "/home/me/train.py", line 40, in main
    state, loss = train_step(state, batch)
  File "/venv/lib/python3.11/site-packages/jax/_src/pjit.py", line 337, in cache_miss
    outs, out_flat, out_tree, args_flat, jaxpr = _python_pjit_helper(fun, jit_info, *args, **kwargs)
jaxlib.xla_extension.XlaRuntimeError: INTERNAL: the jit step could not be dispatched to the XLA device: \
the device handle was released by another thread
"""

# The same failure, but the compiler itself says it broke: a RET_CHECK in an HLO pass.
COMPILER_CHECK = GENERIC_XLA_RUNTIME.replace(
    "the jit step could not be dispatched to the XLA device: "
    "the device handle was released by another thread",
    "RET_CHECK failure (xla/service/hlo_verifier.cc:1234) operand shapes do not agree for fusion.42",
)

# The user's own import fails; the module happens to be a checkpointing library.
IMPORT_ERROR = """\
Traceback (most recent call last):
  File "/home/me/train.py", line 3, in <module>
    from orbax.checkpoint import CheckpointManager, restore_args_from_target
ImportError: cannot import name 'restore_args_from_target' from 'orbax.checkpoint'
"""


def test_generic_xla_words_and_runtime_class_are_not_a_compile_error():
    assert classify_text(GENERIC_XLA_RUNTIME) == []


def test_a_compiler_check_makes_the_same_error_a_compile_error():
    card = classify_text(COMPILER_CHECK)[0]
    assert card.category == "compile_error"
    assert card.facts["named_on"] in ("signature", "anchor")


def test_a_programming_error_is_not_named_after_the_library_it_mentions():
    assert classify_text(IMPORT_ERROR) == []


def test_vocabulary_alone_never_names_a_category():
    ev = Evidence()
    ev.add("checkpoint", "words", 2.0, "words: restore, checkpoint")
    ev.add("checkpoint", "learned", 4.0, "learned words")
    lenient = Model(dict(model().weights), dict(model().bias), 0.5, {})
    assert not corroborated(ev, "checkpoint")
    assert decide(ev, lenient)[0] is None
    # A second, independent witness (where it was raised) makes it a card.
    ev.add("checkpoint", "frame", 0.5, "raised in orbax/checkpoint/checkpoint_manager.py")
    assert corroborated(ev, "checkpoint")
    assert decide(ev, lenient)[0].category == "checkpoint"


def test_two_categories_nearly_tied_is_unknown_under_a_margin():
    ev = Evidence()
    for category in ("oom", "compile_error"):
        ev.add(category, "rule", 0.9, "signature")
    m = model()
    tied = Model(dict(m.weights), dict(m.bias), 0.5, {}, margin=0.2)
    assert decide(ev, tied)[0] is None
    assert decide(ev, Model(dict(m.weights), dict(m.bias), 0.5, {}, margin=0.0))[0] is not None


def test_the_shipped_model_carries_a_margin_chosen_by_cross_validation():
    m = model()
    assert 0.0 <= m.margin < 0.5
    assert Model.from_dict(m.to_dict()) == m
