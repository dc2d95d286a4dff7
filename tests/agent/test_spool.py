import os

from tpuwatch.spool import HEADER, Spool, SpoolWriter, read_records


def _write(directory, payloads, stream="s1"):
    w = SpoolWriter(directory, stream, rotate_seconds=3600)
    for p in payloads:
        w.append(p, 1)
    return w


def test_records_round_trip_after_rotation(tmp_path):
    w = _write(tmp_path, [b"a", b"bb", b"ccc"])
    w.close()
    spool = Spool(tmp_path)
    assert [r.payload for _, r in spool.pending()] == [b"a", b"bb", b"ccc"]


def test_open_segment_of_a_live_writer_is_left_alone(tmp_path):
    w = _write(tmp_path, [b"a"])
    spool = Spool(tmp_path)
    assert spool.recover_abandoned().segments == 0
    assert list(spool.pending()) == []
    w.close()
    assert len(list(spool.pending())) == 1


def test_a_segment_its_writer_closes_while_the_sender_looks_is_left_whole(tmp_path, monkeypatch):
    # The race seen at 1,024 agents: the sender opens a live .open segment, its writer (the same
    # process) renames it to .seg and lets go of the lock, and the sender's lock then succeeds.
    import fcntl

    from tpuwatch import spool as spool_module

    w = _write(tmp_path, [b"one", b"two"])
    real_flock = fcntl.flock

    def writer_closes_first(fd, op):
        if w._fh is not None:
            w.close()
        return real_flock(fd, op)

    monkeypatch.setattr(spool_module.fcntl, "flock", writer_closes_first)
    spool = Spool(tmp_path)
    rec = spool.recover_abandoned()  # raised FileNotFoundError from its rename before
    monkeypatch.undo()
    assert rec.segments == 0 and rec.truncated_bytes == 0
    assert [r.payload for _, r in spool.pending()] == [b"one", b"two"]


def test_torn_tail_of_a_dead_writer_is_cut_and_counted(tmp_path):
    w = _write(tmp_path, [b"one", b"two"])
    path = tmp_path / "s1-00000000.open"
    w._fh.close()  # the writer dies without closing the segment
    with open(path, "ab") as fh:
        fh.write(HEADER.pack(100, 0, 1) + b"partial")
    spool = Spool(tmp_path)
    rec = spool.recover_abandoned()
    assert rec.segments == 1
    assert rec.truncated_bytes == HEADER.size + len(b"partial")
    assert [r.payload for _, r in spool.pending()] == [b"one", b"two"]


def test_corrupt_record_stops_reading_there(tmp_path):
    w = _write(tmp_path, [b"good", b"evil"])
    w.close()
    seg = tmp_path / "s1-00000000.seg"
    data = bytearray(seg.read_bytes())
    data[-1] ^= 0xFF
    seg.write_bytes(bytes(data))
    records, valid_end, size = read_records(seg)
    assert [r.payload for r in records] == [b"good"]
    assert size - valid_end == HEADER.size + 4


def test_acknowledged_records_are_not_sent_again(tmp_path):
    w = _write(tmp_path, [b"a", b"b"])
    w.close()
    spool = Spool(tmp_path)
    seg, first = next(spool.pending())
    spool.set_acked(seg, first.end)
    assert [r.payload for _, r in spool.pending()] == [b"b"]


def test_full_spool_drops_the_oldest_segments_and_counts_their_events(tmp_path):
    for i in range(3):
        w = SpoolWriter(tmp_path, f"s{i}", rotate_seconds=3600)
        w.append(b"x" * 1000, 10)
        w.close()
        os.utime(tmp_path / f"s{i}-00000000.seg", (1000 + i, 1000 + i))
    spool = Spool(tmp_path)
    dropped = spool.enforce_limit(2100)
    assert dropped == 10
    assert [p.name for p in spool.ready()] == ["s1-00000000.seg", "s2-00000000.seg"]
