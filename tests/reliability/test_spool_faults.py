"""What the spool gives up is counted and reported: a full spool drops the oldest data first, a
torn or corrupt tail is cut off; everything before it still arrives, and the server is told."""

from __future__ import annotations

import json
import os

from sqlalchemy import select

from tests.conftest import make_token
from tests.helpers import api, jobs
from tests.reliability.spooling import fill_spool, make_batch
from tpuwatch.sender import Sender
from tpuwatch.server.db import transaction
from tpuwatch.server.models import Step
from tpuwatch.spool import HEADER, Spool, SpoolWriter
from tpuwatch.transport import HttpTransport


def _deliver(spool_dir, url, token, max_spool_bytes=1 << 30) -> Sender:
    sender = Sender(Spool(spool_dir), HttpTransport(url, token, timeout=10), max_spool_bytes=max_spool_bytes)
    try:
        for _ in range(20):
            if sender.deliver():
                return sender
    finally:
        sender.transport.close()
    raise AssertionError(f"spool not drained: {sender.stats}")


def _stored_steps(sessions) -> list[int]:
    with transaction(sessions) as s:
        return sorted(s.scalars(select(Step.step)))


def _events(c, kind: str) -> list[dict]:
    [job] = jobs(c)
    return c.get(f"/api/v1/jobs/{job['id']}/events", params={"kind": kind}).json()["events"]


def test_a_full_spool_drops_the_oldest_segments_counts_them_and_tells_the_server(
    live_server, sessions, tmp_path
):
    fill_spool(tmp_path, batches=5, steps=100)
    segments = sorted(tmp_path.glob("*.seg"))
    for i, seg in enumerate(segments):
        os.utime(seg, (1000 + i, 1000 + i))  # written a second apart, oldest first
    one = segments[0].stat().st_size
    token = make_token(sessions)
    sender = _deliver(tmp_path, live_server.url, token, max_spool_bytes=int(one * 2.5))
    assert sender.stats.spool_dropped_events == 300
    assert _stored_steps(sessions) == list(range(301, 501))  # the newest two batches survived
    with api(live_server.url, token) as c:
        [notice] = _events(c, "spool_dropped")
        [job] = jobs(c)
        detail = c.get(f"/api/v1/jobs/{job['id']}").json()
    assert notice["data"]["events"] == 300 and "300" in notice["message"]
    assert detail["dropped_events"] == 300  # counted where /metrics reads it


def test_a_torn_tail_left_by_a_killed_writer_is_cut_counted_and_reported(live_server, sessions, tmp_path):
    fill_spool(tmp_path, batches=0, steps=0)  # just the folder's meta.json
    writer = SpoolWriter(tmp_path, "s0", rotate_seconds=3600)
    for seq in range(3):
        writer.append(json.dumps(make_batch("s0", seq, "run-1", "job", 50, seq * 50 + 1)).encode(), 50)
    torn = HEADER.pack(5000, 0, 50) + b'{"v":1,"stream":"s0","seq":3,"st'  # the record being written
    writer._fh.write(torn)
    writer._fh.flush()
    writer._fh.close()  # the process dies here: the segment stays .open, its lock goes away
    token = make_token(sessions)
    sender = _deliver(tmp_path, live_server.url, token)
    assert sender.stats.truncated_bytes == len(torn)
    assert _stored_steps(sessions) == list(range(1, 151))
    with api(live_server.url, token) as c:
        [notice] = _events(c, "spool_truncated")
    assert notice["data"]["bytes"] == len(torn)
    assert list(tmp_path.glob("*.open")) == [] and list(tmp_path.glob("s0-*")) == []


def test_a_corrupt_record_in_a_closed_segment_is_cut_and_the_segment_does_not_stick(
    live_server, sessions, tmp_path
):
    fill_spool(tmp_path, batches=0, steps=0)
    writer = SpoolWriter(tmp_path, "s0", rotate_seconds=3600)
    sizes = []
    for seq in range(3):
        payload = json.dumps(make_batch("s0", seq, "run-1", "job", 50, seq * 50 + 1)).encode()
        writer.append(payload, 50)
        sizes.append(HEADER.size + len(payload))
    writer.close()
    seg = next(tmp_path.glob("s0-*.seg"))
    data = bytearray(seg.read_bytes())
    data[sizes[0] + sizes[1] + HEADER.size + 10] ^= 0xFF  # a flipped bit in the third record
    seg.write_bytes(bytes(data))
    token = make_token(sessions)
    sender = _deliver(tmp_path, live_server.url, token)
    assert _stored_steps(sessions) == list(range(1, 101))
    assert sender.stats.truncated_bytes == sizes[2]
    assert not seg.exists()  # cut and gone, not retried forever
    with api(live_server.url, token) as c:
        assert len(_events(c, "spool_truncated")) == 1


def test_a_reader_never_takes_a_segment_whose_writer_is_still_opening_it(tmp_path, monkeypatch):
    """A sender looking at the folder between the writer creating a segment and locking it must not
    recover it as a dead writer's: the writer would go on appending to a file already taken."""
    import tpuwatch.spool as spool_module

    real_flock = spool_module.fcntl.flock
    looked = []

    def flock_after_a_reader_looked(fd, op):
        if not looked:  # the writer's own lock: let a reader run first, as a sender thread may
            looked.append(Spool(tmp_path).recover_abandoned().segments)
        return real_flock(fd, op)

    monkeypatch.setattr(spool_module.fcntl, "flock", flock_after_a_reader_looked)
    writer = SpoolWriter(tmp_path, "s0", rotate_seconds=3600)
    writer.append(b"first", 1)
    writer.append(b"second", 1)
    writer.close()
    assert looked == [0]
    assert [r.payload for _, r in Spool(tmp_path).pending()] == [b"first", b"second"]
