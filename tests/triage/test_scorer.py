"""The scorer: signatures and structure weighed together, a gate for unknown, and the reasons."""

from __future__ import annotations

from tpuwatch.server.triage.engine import classify_text
from tpuwatch.server.triage.features import Evidence
from tpuwatch.server.triage.scorer import Model, decide, model

ORBAX_NEW_WORDING = """\
Traceback (most recent call last):
  File "/home/me/resume.py", line 31, in resume
    state = mngr.restore(step, args=ocp.args.StandardRestore(abstract_state))
  File "/venv/lib/python3.11/site-packages/orbax/checkpoint/checkpoint_manager.py", line 1402, in restore
    restored = self._checkpointer.restore(restore_directory, args=args)
  File "/venv/lib/python3.11/site-packages/orbax/checkpoint/_src/handlers/standard_checkpoint_handler.py", \
line 240, in restore
    raise ValueError(f"Leaf {key} has {have} elements where {want} were saved")
ValueError: Leaf params/decoder/mlp/wi has 1048576 elements where 2097152 were saved
"""


def test_shipped_weights_only_support_categories():
    m = model()
    assert all(w >= 0 for w in m.weights.values())
    assert 0.5 <= m.gate < 1


def test_a_sure_signature_alone_makes_a_card():
    ev = Evidence()
    ev.add("local_filesystem", "rule", 0.98, "signature")
    best, _ = decide(ev)
    assert best.category == "local_filesystem" and best.probability >= 0.98


def test_no_evidence_is_unknown():
    assert decide(Evidence()) == (None, [])


def test_the_gate_turns_weak_evidence_into_unknown():
    ev = Evidence()
    ev.add("checkpoint", "words", 0.3, "words: save")
    strict = Model(dict(model().weights), dict(model().bias), 0.99, {})
    assert decide(ev, strict)[0] is None


def test_new_wording_raised_inside_orbax_is_a_checkpoint_card_with_its_reasons():
    card = classify_text(ORBAX_NEW_WORDING)[0]
    assert card.category == "checkpoint"
    assert card.evidence.startswith("ValueError: Leaf params/decoder/mlp/wi has 1048576 elements")
    assert any("orbax/checkpoint" in signal for signal in card.facts["signals"])
