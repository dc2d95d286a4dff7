"""The anchor scan finds exactly the lines that hold a scan key (its speed is measured by
bench/bench_triage.py in `make bench`, not asserted here).

The reference is the plainest statement of what the scan is for: a line is a candidate when one of
``SCAN_KEYS`` occurs in it, as written (case-sensitive). It is checked on a generated training log,
on every captured framework error (zoo and supplement), on the dev corpus when the shared folder
is beside the checkout, and on edge cases (non-ASCII text, keys at the edges, a last line without a
newline, several keys on one line).
"""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

from bench.bench_triage import make_log
from tpuwatch.server.triage.engine import Classifier
from tpuwatch.server.triage.scan import SCAN_KEYS, index
from tpuwatch.server.triage.structure import is_own_line

HERE = Path(__file__).parent
_CAPTURED = [HERE / "zoo" / "captured.jsonl", HERE / "supplement" / "captured.jsonl"]
# The dev corpus lives in the shared folder beside the main checkout (not in the repository).
_DEV = [
    HERE.parents[2] / "shared" / "corpus" / "errors-dev.jsonl",
    Path("/work/shared/corpus/errors-dev.jsonl"),
]

_EDGES = [
    "",
    "rror",
    "rror\n",
    "\nrror",
    "step 1 loss 0.3\nstep 2 loss 0.2",
    "1875/1875 ━━━━━━━━━━━━━━━━━━━━ 3s 1ms/step - loss: nan - accuracy: 0.1\n",
    "😀 emoji first, then an Error 😀\nplain line\nünïcödé Traceback\n",
    "ERROR FAILED EXCEPTION\nerror\nFAILED\nfailed\nXLA_EXHAUSTED RESOURCE_EXHAUSTED\n",
    "NaNaNaN OOMOOM rrorrror File File \r\nWindows line with Fail\r\n",
    "Cell In[3], line 1\n<ipython-input-5-abc>\nsteps_per_epoch * epochs\nsteps_per_epoch *epochs\n",
    "Op(s) not lowered\nOp(s)not\nTotal hbm usage >= 17G\nTotal  hbm\n" * 3,
]


def _rows(path: Path) -> list[str]:
    return [json.loads(line)["text"] for line in path.read_text().split("\n") if line.strip()]


def _texts() -> list[str]:
    texts = list(_EDGES)
    for path in _CAPTURED:
        texts += _rows(path)
    dev = next((p for p in _DEV if p.exists()), None)
    if dev is not None:
        texts += _rows(dev)
    texts.append(make_log(2_000_000, seed=13))
    return texts


def _reference(text: str) -> list[tuple[int, str]]:
    """(1-based line number, line) of each line holding a key, lines cut at newlines only."""
    return [(n, line) for n, line in enumerate(text.split("\n"), 1) if any(k in line for k in SCAN_KEYS)]


def test_captured_corpora_are_all_read():
    # The comparison below means something only if the corpora are there and hold key lines.
    assert sum(len(_rows(p)) for p in _CAPTURED) >= 200
    assert sum(len(_reference(t)) for t in _texts()) > 1000


def test_no_scan_key_holds_a_newline():
    # The scan relies on it: a key found lies within one line.
    assert all("\n" not in key and key for key in SCAN_KEYS)


def test_scan_finds_exactly_the_lines_that_hold_a_key():
    for number, text in enumerate(_texts()):
        spans = index().key_lines(text)
        found = [(text.count("\n", 0, s) + 1, text[s:e]) for s, e in spans]
        assert found == _reference(text), f"text {number}: {text[:200]!r}"


def test_any_window_finds_the_same_lines():
    # The automaton reads the block a window at a time; keys cut by a window's end, lines longer
    # than a window and lines found across windows must make no difference.
    texts = _EDGES + _rows(_CAPTURED[1]) + [make_log(100_000, seed=3), "x" * 50 + "NaN " * 40 + "\nFail"]
    for window in (1, 2, 3, 7, 24, 100, 4096):
        for number, text in enumerate(texts):
            found = [(text.count("\n", 0, s) + 1, text[s:e]) for s, e in index().key_lines(text, window)]
            assert found == _reference(text), f"window {window}, text {number}: {text[:200]!r}"


def test_a_giant_line_full_of_keys_holds_little_memory():
    line = "NaN " * 1_000_000  # 4 MB, a million keys, one line
    tracemalloc.start()
    try:
        spans = list(index().key_lines(line + "\nnext\n"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert spans == [(0, len(line))]
    assert peak < 8_000_000, peak  # one window's matches, not one tuple per key


def test_the_engine_examines_exactly_the_key_lines_of_a_streamed_log():
    examined: list[tuple[int, str]] = []

    class Recording(Classifier):
        def _examine(self, line, lineno):
            examined.append((lineno, line))
            return super()._examine(line, lineno)

    text = "\n".join(_texts()[1:]) + "\ntpuwatch: agent line with an Error in it\nlast Fail"
    classifier = Recording()
    for i in range(0, len(text), 300_007):  # blocks that cut lines, as a live log arrives
        classifier.feed_text(text[i : i + 300_007])
    classifier.cards()
    expected = [(n, line) for n, line in _reference(text) if not is_own_line(line)]
    assert examined == expected
    assert expected[-1] == (text.count("\n") + 1, "last Fail")
