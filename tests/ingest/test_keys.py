"""The batch keys, 64 to a row: each batch stored once, its digest kept at its slot, old keys pruned."""

from __future__ import annotations

import hashlib

from sqlalchemy import func, select

from tests.conftest import make_token
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest import keys
from tpuwatch.server.ingest.schemas import Batch, RunInfo
from tpuwatch.server.ingest.service import ingest
from tpuwatch.server.models import IngestKey, Job, Step
from tpuwatch.server.tokens.service import authenticate


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _job(s, token: str) -> int:
    job = Job(
        project_id=authenticate(s, token).project_id,
        run_id="r",
        name="j",
        group_key="j",
        status="running",
        started_at=0.0,
    )
    job.last_seen_at, job.steps, job.errors, job.dropped_events, job.attrs = 0.0, 0, 0, 0, {}
    s.add(job)
    s.flush()
    return job.id


def test_each_batch_is_claimed_once_across_rows_and_its_digest_kept(sessions):
    token = make_token(sessions)
    seqs = [0, 1, 62, 63, 64, 127, 128, 5000, -1]
    with transaction(sessions) as s:
        jid = _job(s, token)
        assert all(keys.claim(s, jid, "st", q, "", _digest(str(q)), 100.0) for q in seqs)
        assert not any(keys.claim(s, jid, "st", q, "", _digest(str(q)), 101.0) for q in seqs)
        assert keys.claim(s, jid, "other", 0, "", None, 100.0)  # another stream: its own keys
        assert keys.claim(s, jid, "st", 63, "0", _digest("p0"), 100.0)  # a part of a split batch
        assert keys.claim(s, jid, "st", 63, "1", _digest("p1"), 100.0)
        assert not keys.claim(s, jid, "st", 63, "1", _digest("p1"), 100.0)
    with transaction(sessions) as s:
        assert keys.stored_seqs(s, jid, "st") == sorted(seqs)
        assert keys.stored_count(s) == len(seqs) + 1 + 2
        for q in seqs:
            stored = keys.stored_digest(s, jid, "st", q, "")
            assert stored == _digest(str(q))[: 2 * keys.DIGEST_BYTES], q
            assert keys.same_content(_digest(str(q)), stored)
            assert not keys.same_content(_digest("something else"), stored)
        assert keys.stored_digest(s, jid, "other", 0, "") is None  # none was given
        assert keys.stored_digest(s, jid, "st", 2, "") is None  # never stored
        assert keys.stored_digest(s, jid, "st", 63, "1") == _digest("p1")[:8]


def test_a_group_claims_each_key_once_whatever_its_row_held_before(sessions):
    """On PostgreSQL a group claims a key row in one statement; a row where some batch was stored
    before, or a key twice, goes one by one: either way each batch is new once, its first copy's
    digest at its slot."""
    token = make_token(sessions)

    def keyed(stream: str, seqs, tag: str = "a"):
        return [(jid, stream, q, "", _digest(f"{tag}{q}")) for q in seqs]

    with transaction(sessions) as s:
        jid = _job(s, token)
        assert keys.claim_many(s, keyed("st", [1, 5]), 100.0) == [True, True]
        group = keyed("st", [0, 1, 2, 63, 63, 64, 200]) + keyed("st", [2], "x") + keyed("other", [5])
        fresh = [True, False, True, True, False, True, True, False, True]
        assert keys.claim_many(s, group, 101.0) == fresh
        assert keys.claim_many(s, keyed("st", [3, 4, 65]), 102.0) == [True, True, True]  # rows kept
        assert keys.claim_many(s, group, 103.0) == [False] * len(group)
    with transaction(sessions) as s:
        assert keys.stored_seqs(s, jid, "st") == [0, 1, 2, 3, 4, 5, 63, 64, 65, 200]
        for q in keys.stored_seqs(s, jid, "st"):
            assert keys.stored_digest(s, jid, "st", q, "") == _digest(f"a{q}")[:8], q
        assert keys.stored_digest(s, jid, "other", 5, "") == _digest("a5")[:8]


def test_keys_past_the_window_go_but_a_row_with_a_late_batch_stays(sessions):
    token = make_token(sessions)
    with transaction(sessions) as s:
        jid = _job(s, token)
        keys.claim(s, jid, "old", 0, "", None, 100.0)
        keys.claim(s, jid, "old", 1, "", None, 150.0)
        keys.claim(s, jid, "late", 0, "", None, 100.0)
        keys.claim(s, jid, "late", 1, "", None, 900.0)  # the same row, a batch that came late
        keys.claim(s, jid, "new", 0, "", None, 800.0)
        keys.claim(s, jid, "old", 3, "1", None, 100.0)
    with transaction(sessions) as s:
        assert keys.prune(s, cutoff=500.0) == 2  # "old"'s row and its part
        assert keys.stored_seqs(s, jid, "old") == []
        assert keys.stored_seqs(s, jid, "late") == [0, 1]
        assert keys.stored_seqs(s, jid, "new") == [0]
        assert keys.prune(s, cutoff=500.0) == 0


def test_a_redelivery_through_ingest_stores_nothing_and_a_conflict_is_counted(sessions):
    token = make_token(sessions)
    run = RunInfo.model_construct(run_id="r9", job="j9", host=3, attrs={})

    def batch(steps):
        return Batch.model_construct(
            v=1, stream="s", seq=64, part="", run=run, sent_at=None, steps=steps,
            events=[], metrics=[], dropped=0, logs=[],
        )  # fmt: skip

    with transaction(sessions) as s:
        principal = authenticate(s, token)
        first = ingest(s, principal, batch([(1, 1e9, 1.0, 0.0)]), _digest("a"))
        again = ingest(s, principal, batch([(1, 1e9, 1.0, 0.0)]), _digest("a"))
        other = ingest(s, principal, batch([(2, 1e9, 1.0, 0.0)]), _digest("b"))
    assert first.stored == 1 and again.duplicate and other.duplicate and "different content" in other.detail
    with transaction(sessions) as s:
        assert s.scalar(select(func.count()).select_from(Step)) == 1
        assert s.scalar(select(Job.conflicting_batches).where(Job.id == first.job_id)) == 1
        assert s.scalar(select(func.count()).select_from(IngestKey)) == 1
