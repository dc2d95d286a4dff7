"""A spool segment's batches travel as one request, and a copy sent again after a lost answer is
the same request; one bad batch among them costs only itself."""

from __future__ import annotations

import json

from sqlalchemy import select

from tests.conftest import make_token
from tests.reliability.spooling import make_batch
from tpuwatch.sender import Sender, merge_batches
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest import keys
from tpuwatch.server.models import Job, Step
from tpuwatch.spool import Spool, SpoolWriter
from tpuwatch.transport import HttpTransport


def _segment(directory, batches: list[dict]) -> None:
    (directory / "meta.json").write_text(json.dumps({"run_id": "run-1", "job": "job", "host": 0}))
    writer = SpoolWriter(directory, "s0", rotate_seconds=3600)
    for b in batches:
        writer.append(json.dumps(b).encode(), len(b["steps"]))
    writer.rotate()


def test_runs_are_cut_by_size_and_are_the_same_runs_when_read_again(tmp_path):
    _segment(tmp_path, [make_batch("s0", seq, "run-1", "job", 10, seq * 10 + 1) for seq in range(7)])
    spool = Spool(tmp_path)
    runs = [[r.events for r in run] for _, run in spool.pending_groups(max_events=25, max_bytes=1 << 20)]
    assert runs == [[10, 10], [10, 10], [10, 10], [10]]
    segment, first = next(spool.pending_groups(25, 1 << 20))
    spool.set_acked(segment, first[-1].end)  # the first run arrived: the next runs start after it
    again = [[r.offset for r in run] for _, run in spool.pending_groups(25, 1 << 20)]
    assert again == [[r.offset for r in run] for _, run in list(Spool(tmp_path).pending_groups(25, 1 << 20))]
    assert len(again) == 3
    merged = [
        json.loads(merge_batches([r.payload for r in run])) for _, run in spool.pending_groups(25, 1 << 20)
    ]
    assert [m["seq"] for m in merged] == [2, 4, 6]  # a merged batch goes under its first batch's key
    assert [[r[:2] for r in m["records"]] for m in merged[:2]] == [[[2, 10], [3, 10]], [[4, 10], [5, 10]]]
    assert "records" not in merged[2]  # ... and lists each one's key and rows when there are several
    assert [s[0] for s in merged[0]["steps"]] == list(range(21, 41))


def test_one_request_per_segment_and_a_bad_batch_among_them_costs_only_itself(
    live_server, sessions, tmp_path
):
    batches = [make_batch("s0", seq, "run-1", "job", 10, seq * 10 + 1) for seq in range(5)]
    batches[2]["steps"][0][2] = -1.0  # a negative step time: the server refuses this batch
    _segment(tmp_path, batches)
    token = make_token(sessions)
    sender = Sender(Spool(tmp_path), HttpTransport(live_server.url, token, timeout=10))
    try:
        assert sender.deliver()
    finally:
        sender.transport.close()
    with transaction(sessions) as s:
        steps = list(s.scalars(select(Step.step).order_by(Step.step)))
        seqs = keys.stored_seqs(s, s.scalar(select(Job.id)), "s0")
    assert steps == [*range(1, 21), *range(31, 51)]  # every batch but the bad one, once
    assert seqs == [0, 1, 3, 4]  # the merged request was refused whole, then each went alone
    assert sender.stats.rejected_batches == 1 and len(sender.stats.errors) == 1


def test_a_segment_sent_again_after_its_answer_was_lost_is_stored_once(live_server, sessions, tmp_path):
    import shutil

    _segment(tmp_path, [make_batch("s0", seq, "run-1", "job", 10, seq * 10 + 1) for seq in range(4)])
    [segment] = tmp_path.glob("*.seg")
    shutil.copy(segment, tmp_path / "copy")
    token = make_token(sessions)
    duplicates = []
    for _ in range(2):  # the second time, the answer to the first was "lost": the segment is back
        if not segment.exists():
            shutil.copy(tmp_path / "copy", segment)
        sender = Sender(Spool(tmp_path), HttpTransport(live_server.url, token, timeout=10))
        try:
            assert sender.deliver()
        finally:
            sender.transport.close()
        duplicates.append(sender.stats.duplicates)
    assert duplicates == [0, 1]
    with transaction(sessions) as s:
        assert list(s.scalars(select(Step.step).order_by(Step.step))) == list(range(1, 41))
        # One request, each of its batches' keys: what went out merged is known batch by batch.
        assert keys.stored_seqs(s, s.scalar(select(Job.id)), "s0") == [0, 1, 2, 3]
        assert list(s.scalars(select(Job.conflicting_batches))) == [0]  # the copy was the same bytes


def _deliver_alone_then_sync(live_server, sessions, tmp_path, alone: int) -> tuple[list[int], int]:
    """A segment of four batches (10 steps each); batch ``alone`` reaches the server by itself
    first (what a sender that cut the segment into other runs sends, then is killed before its
    acknowledgement is written); then the whole spool goes out, as `agent sync` sends it."""
    _segment(tmp_path, [make_batch("s0", seq, "run-1", "job", 10, seq * 10 + 1) for seq in range(4)])
    token = make_token(sessions)
    record = list(Spool(tmp_path).pending())[alone][1]
    transport = HttpTransport(live_server.url, token, timeout=10)
    try:
        assert transport.send(record.payload).ok
    finally:
        transport.close()
    sender = Sender(Spool(tmp_path), HttpTransport(live_server.url, token, timeout=10))
    try:
        assert sender.deliver()
    finally:
        sender.transport.close()
    assert sender.stats.sent_batches == 1  # the spool went out as one merged request
    with transaction(sessions) as s:
        return list(s.scalars(select(Step.step).order_by(Step.step))), sender.stats.duplicates


def test_a_batch_stored_alone_is_not_stored_again_inside_a_merged_request(live_server, sessions, tmp_path):
    steps, duplicates = _deliver_alone_then_sync(live_server, sessions, tmp_path, alone=1)
    assert steps == list(range(1, 41))  # every step once: batch 1's ten were not stored twice
    assert duplicates == 0  # the request stored something: batches 0, 2 and 3


def test_a_merged_request_under_a_stored_key_still_stores_its_other_batches(live_server, sessions, tmp_path):
    steps, _ = _deliver_alone_then_sync(live_server, sessions, tmp_path, alone=0)
    assert steps == list(range(1, 41))  # batches 1 to 3 are not lost as a "duplicate" of batch 0


def test_a_merged_request_too_large_splits_between_its_batches_keeping_their_keys():
    from tpuwatch.batching import split_batch

    payloads = [
        json.dumps(make_batch("s0", seq, "run-1", "job", 10, seq * 10 + 1)).encode() for seq in range(3)
    ]
    halves = [(json.loads(p), n) for p, n in split_batch(merge_batches(payloads))]
    assert [(h["seq"], h.get("records"), n) for h, n in halves][0] == (0, None, 10)
    assert [r[:2] for r in halves[1][0]["records"]] == [[1, 10], [2, 10]] and halves[1][1] == 20
    assert [s[0] for h, _ in halves for s in h["steps"]] == list(range(1, 31))
    assert all(h.get("part", "") == "" for h, _ in halves)  # whole batches: their own keys, no parts
    one = split_batch(payloads[0])  # a single batch still splits into parts of its key
    assert [(json.loads(p)["seq"], json.loads(p)["part"]) for p, _ in one] == [(0, "0"), (0, "1")]
