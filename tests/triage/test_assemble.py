"""Finding the error in a log: prefixes, frames, events and the root error."""

from __future__ import annotations

from tpuwatch.server.triage.assemble import Assembler, is_user_file, strip_prefix


def _feed(text: str) -> Assembler:
    asm = Assembler()
    for number, line in enumerate(text.splitlines(), 1):
        asm.observe(line, number)
    return asm


def test_strip_prefix_knows_glog_tf_cpp_and_python_logging():
    assert strip_prefix("E0221 12:00:00.000000 1234 client.cc:80] boom") == ("E", "boom")
    assert strip_prefix("F0221 12:00:00.000000  77 client.h:80] dead") == ("F", "dead")
    assert strip_prefix("2024-02-21 12:00:00.123456: W tensorflow/core/x.cc:157] RPC failed") == (
        "W",
        "RPC failed",
    )
    assert strip_prefix("ERROR:absl:bad thing") == ("E", "bad thing")
    assert strip_prefix("plain text") == ("", "plain text")


def test_user_frames_skip_libraries():
    assert is_user_file("/home/me/train.py")
    assert is_user_file("<string>")
    assert not is_user_file("/usr/local/lib/python3.10/site-packages/jax/_src/api.py")
    assert not is_user_file("/usr/lib/python3/dist-packages/six.py")


def test_root_event_is_the_first_exception_not_the_last_echo():
    asm = _feed("""\
Traceback (most recent call last):
  File "/home/me/a.py", line 3, in f
  File "/usr/lib/python3.10/site-packages/lib.py", line 9, in g
KeyError: 'x'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/home/me/b.py", line 7, in main
RuntimeError: wrapped
""")
    root = asm.root_event()
    assert (root.kind, root.line, root.exc_type) == ("exception", 4, "KeyError")
    assert root.user_frame == "/home/me/a.py:3"
    assert [e.exc_type for e in asm.events] == ["KeyError", "RuntimeError"]


def test_lines_after_a_chain_or_a_reraise_weigh_less():
    asm = Assembler()
    assert asm.observe("ValueError: first", 1) == 1.0
    asm.observe("During handling of the above exception, another exception occurred:", 2)
    assert asm.observe("RuntimeError: second", 3) == 0.95
    retry = asm.observe("W0221 12:00:00.0 1 x.cc:1] Unavailable: maybe retrying the RPC", 4)
    assert retry < 0.95


def test_recorded_error_and_glog_error_are_events():
    asm = _feed("""\
I0221 12:00:00.000000 1 tpu_estimator.py:10] Error recorded from infeed: reader broke
E0221 12:00:01.000000 1 runtime.cc:5] device halted
""")
    kinds = [(e.kind, e.line) for e in asm.events]
    assert kinds == [("recorded", 1), ("glog", 2)]
    assert asm.root_event().text == "reader broke"


def test_frames_memory_is_bounded():
    asm = Assembler()
    asm.observe("Traceback (most recent call last):", 1)
    for i in range(10_000):
        asm.observe(f'  File "/home/me/deep.py", line {i}, in rec', i + 2)
    assert len(asm._frames) <= 64
    assert asm.user_frame == "/home/me/deep.py:9999"
