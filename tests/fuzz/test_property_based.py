"""Hypothesis on the two parsers that take arbitrary text: the traceback assembler and the
ingest schema. Neither may crash, lose a traceback, or accept what the database cannot store."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from tpuwatch import wire
from tpuwatch.server.ingest.schemas import BatchAdapter, TimeWindow
from tpuwatch.tracebacks import MAX_CHARS, MAX_LINES, TracebackAssembler

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)

lines = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=200).map(
    lambda s: s.replace("\n", " ").replace("\r", " ")  # the sidecar splits lines and resolves CRs first
)
frame = st.builds(
    lambda f, n, fn: f'  File "{f}", line {n}, in {fn}',
    st.text(min_size=1, max_size=30),
    st.integers(1, 10**6),
    lines,
)
exc_name = st.from_regex(r"\A[A-Za-z_][A-Za-z0-9_]{0,20}(Error|Exception)\Z")


@FAST
@given(st.lists(lines, max_size=60))
def test_the_assembler_never_crashes_and_never_invents_an_error_from_plain_lines(text):
    asm = TracebackAssembler()
    out = []
    for line in text:
        out.extend(asm.feed(line))
    out.extend(asm.flush())
    if not any("Traceback (most recent call last):" in t or t.startswith("F") for t in text):
        assert out == []
    for err in out:
        assert len(err.text) <= MAX_CHARS + 1000 and err.text.count("\n") < MAX_LINES + 5


@FAST
@given(
    st.lists(lines, max_size=10),
    st.lists(frame, min_size=1, max_size=20),
    exc_name,
    lines,
    st.lists(lines, max_size=5),
)
def test_a_traceback_inside_any_noise_comes_out_whole_once(before, frames, name, message, after):
    message = message.strip() or "boom"
    tb = ["Traceback (most recent call last):", *frames, f"{name}: {message}"]
    asm = TracebackAssembler()
    out = []
    # Noise that itself looks like a traceback start would be a second error: keep it plain.
    noise_ok = [n for n in before + after if "Traceback" not in n and not n.startswith("F")]
    for line in [*noise_ok[: len(before)], *tb, "", "2024-01-01 12:00:00 INFO next record"]:
        out.extend(asm.feed(line))
    out.extend(asm.flush())
    [err] = out
    assert err.exception == f"{name}: {message}"
    assert err.text.startswith("Traceback (most recent call last):")
    assert all(f in err.text for f in frames)


# What a valid batch may hold: texts without NUL (PostgreSQL cannot store one), UNIX times between
# 2000 and 2100, durations up to a week.
text = st.text(st.characters(exclude_characters="\x00", exclude_categories=("Cs",)))
run = st.fixed_dictionaries(
    {"run_id": st.text(min_size=1, max_size=128).filter(lambda t: "\x00" not in t), "job": text.filter(bool)},
    optional={
        "host": st.integers(0, 65535),
        "attrs": st.dictionaries(text.map(lambda t: t[:10]), st.integers()),
    },
)
unix_time = st.floats(min_value=wire.MIN_TIME, max_value=wire.MAX_TIME)
seconds = st.floats(min_value=0, max_value=wire.MAX_DURATION_S)
step = st.tuples(st.integers(0, wire.MAX_STEP), unix_time, seconds, seconds)
any_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@FAST
@given(text.map(lambda t: t[:64]).filter(bool), st.integers(0, 2**63 - 1), run, st.lists(step, max_size=20))
def test_every_valid_batch_is_accepted_as_sent(stream, seq, run_info, steps):
    body = json.dumps({"stream": stream, "seq": seq, "run": run_info, "steps": steps}).encode()
    batch = BatchAdapter.validate_json(body)
    assert batch.seq == seq and batch.stream == stream and len(batch.steps) == len(steps)
    assert [s[0] for s in batch.steps] == [s[0] for s in steps]


@FAST
@given(any_json)
def test_arbitrary_json_is_either_a_batch_or_a_validation_error(doc):
    try:
        batch = BatchAdapter.validate_json(json.dumps(doc))
    except ValidationError:
        return
    assert batch.stream and batch.seq >= 0  # accepted only when it really is a batch


@FAST
@given(st.integers(min_value=2**63), st.sampled_from(["seq", "step"]))
def test_numbers_beyond_64_bits_are_refused_by_the_schema_not_the_database(big, where):
    doc = {"stream": "s", "seq": 0, "run": {"run_id": "r", "job": "j"}, "steps": [[1, 1.0, 0.1, 0.0]]}
    if where == "seq":
        doc["seq"] = big
    else:
        doc["steps"][0][0] = big
    try:
        BatchAdapter.validate_json(json.dumps(doc))
    except ValidationError:
        return
    raise AssertionError(f"{where}={big} was accepted: the database column is 64-bit")


def _doc(**parts) -> dict:
    doc = {"stream": "s", "seq": 0, "run": {"run_id": "r", "job": "j"}, "steps": [[1, 1.8e9, 0.1, 0.0]]}
    doc.update(parts)
    return doc


def _refused(doc: dict, context: dict | None = None) -> bool:
    try:
        BatchAdapter.validate_json(json.dumps(doc), context=context)
    except ValidationError:
        return True
    return False


outside = st.floats(max_value=wire.MIN_TIME, exclude_max=True) | st.floats(
    min_value=wire.MAX_TIME, exclude_min=True
)


@FAST
@given(outside, st.sampled_from(["step", "event", "metric", "sent_at"]))
def test_a_time_no_calendar_of_ours_holds_is_refused_wherever_it_is(ts, where):
    doc = _doc()
    if where == "step":
        doc["steps"].append([2, ts, 0.1, 0.0])
    elif where == "event":
        doc["events"] = [[ts, "error", "x", None]]
    elif where == "metric":
        doc["metrics"] = [[ts, "m", 0, 1.0]]
    else:
        doc["sent_at"] = ts
    assert _refused(doc)


@FAST
@given(unix_time, unix_time, unix_time)
def test_a_time_outside_the_servers_window_is_refused_and_one_inside_is_not(a, b, ts):
    window = TimeWindow(min(a, b), max(a, b))
    doc = _doc(steps=[[1, ts, 0.1, 0.0]])
    assert _refused(doc, {"window": window}) == (not window.earliest <= ts <= window.latest)


@FAST
@given(st.floats(min_value=wire.MAX_DURATION_S, exclude_min=True), st.sampled_from([2, 3]))
def test_a_duration_longer_than_a_week_is_refused(d, col):
    row = [1, 1.8e9, 0.1, 0.0]
    row[col] = d
    assert _refused(_doc(steps=[row]))


@FAST
@given(text, text, st.sampled_from(["stream", "run_id", "job", "kind", "message", "metric", "data", "attrs"]))
def test_a_nul_in_any_text_is_refused(before, after, where):
    nul = before[:20] + "\x00" + after[:20]
    doc = _doc()
    if where == "stream":
        doc["stream"] = nul
    elif where in ("run_id", "job"):
        doc["run"][where] = nul
    elif where == "kind":
        doc["events"] = [[1.8e9, nul[:32], "", None]]
    elif where == "message":
        doc["events"] = [[1.8e9, "error", nul, None]]
    elif where == "metric":
        doc["metrics"] = [[1.8e9, nul, 0, 1.0]]
    elif where == "data":
        doc["events"] = [[1.8e9, "error", "", {"k": [nul]}]]
    else:
        doc["run"]["attrs"] = {nul: 1}
    assert _refused(doc)


@FAST
@given(st.integers(1, 4 * wire.MAX_DATA_BYTES), st.sampled_from(["data", "attrs"]))
def test_free_form_json_is_refused_past_its_size_and_accepted_within_it(size, where):
    doc = _doc()
    blob = {"x": "a" * size}
    limit = wire.MAX_DATA_BYTES if where == "data" else wire.MAX_ATTRS_BYTES
    if where == "data":
        doc["events"] = [[1.8e9, "note", "", blob]]
    else:
        doc["run"]["attrs"] = blob
    assert _refused(doc) == (len(json.dumps(blob, separators=(",", ":"))) > limit)


typed_fields = st.sampled_from([(k, f) for k, fields in wire.EVENT_DATA.items() for f in fields])


@FAST
@given(typed_fields, any_json | st.integers(-(2**70), 2**70))
def test_a_typed_event_field_is_stored_only_with_its_type_and_a_refusal_names_it(kind_field, value):
    kind, field = kind_field
    if "\\u0000" in json.dumps(value):
        return  # a NUL is refused for itself (above)
    doc = _doc(events=[[1.8e9, kind, "", {field: value}]])
    try:
        batch = BatchAdapter.validate_json(json.dumps(doc))
    except ValidationError as exc:
        assert f"data.{field} of an event of kind {kind!r}" in str(exc)
        return
    stored = batch.events[0][3][field]
    assert wire.data_problem(kind, {field: stored}) is None
    if kind == "exit" and field == "code" and stored is not None:
        assert type(stored) is int and -(2**31) <= stored < 2**31
