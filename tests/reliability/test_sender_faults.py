"""How the sender treats a server that fails: backoff with jitter, 429 Retry-After, other 4xx
never retried, 413 split into parts that arrive whole."""

from __future__ import annotations

import json
import statistics
import time

import pytest

from tests.conftest import make_token, start_server
from tests.helpers import api, jobs
from tests.reliability.fakes import ScriptedServer, monitor_for
from tests.reliability.spooling import fill_spool
from tpuwatch import sender as sender_module
from tpuwatch.sender import Backoff, Sender
from tpuwatch.spool import Spool
from tpuwatch.transport import HttpTransport


def _deliver_until_done(sender: Sender, attempts: int = 50) -> int:
    """Deliver the spool; returns how many rounds it took. Closes the connection afterwards."""
    try:
        for n in range(1, attempts + 1):
            if sender.deliver():
                return n
    finally:
        sender.transport.close()
    raise AssertionError(f"not delivered after {attempts} attempts: {sender.stats}")


def test_backoff_grows_exponentially_with_full_jitter_and_a_cap():
    sender_module._jitter.seed(7)
    draws = {attempt: [] for attempt in range(8)}
    for _ in range(300):
        b = Backoff(base=0.1, cap=2.0)
        for attempt in range(8):
            draws[attempt].append(b.next_delay())
    for attempt, values in draws.items():
        ceiling = min(2.0, 0.1 * 2**attempt)
        assert all(0 <= v <= ceiling for v in values)
        # full jitter: spread over the whole window, not clustered at its top
        assert statistics.mean(values) == pytest.approx(ceiling / 2, rel=0.2)
        assert len(set(values)) == len(values)
    b = Backoff(base=0.1, cap=2.0)
    b.next_delay(), b.next_delay()
    b.reset()
    assert b.next_delay() <= 0.1


def test_5xx_is_retried_with_growing_jittered_waits_and_delivered_once(tmp_path):
    sender_module._jitter.seed(3)
    fill_spool(tmp_path, batches=1, steps=10)
    with ScriptedServer([(503, {})] * 4) as srv:
        sender = Sender(Spool(tmp_path), HttpTransport(srv.url, "t", timeout=5))
        sender.backoff = Backoff(base=0.1, cap=5.0)
        _deliver_until_done(sender)
        times = [t for t, _ in srv.requests]
    assert len(times) == 5  # four failures, then the batch
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    for attempt, gap in enumerate(gaps):
        assert gap <= 0.1 * 2**attempt + 0.25, gaps  # within the jitter window (plus slack)
    assert len({round(g, 3) for g in gaps}) == len(gaps)  # jittered, not a fixed interval
    assert sender.stats.sent_batches == 1 and sender.stats.rejected_batches == 0
    assert list(Spool(tmp_path).pending()) == []


def test_a_host_waiting_for_an_answer_sends_one_bigger_request_not_a_queue_of_them(tmp_path):
    # A busy server answers after 1 s; the host's own interval is 0.2 s. Without waiting for the
    # answer it would close a segment, one request each, every 0.2 s and queue them on the server.
    with ScriptedServer([], delay=1.0) as srv:
        mon = monitor_for(srv, tmp_path, every=0.1)
        for _ in range(60):
            with mon.step():
                time.sleep(0.05)
        mon.close(timeout=10)
        bodies = [json.loads(body) for _, body in srv.requests]
    steps = [s for b in bodies for s in b["steps"]]
    assert len(steps) == 60 and len({s[0] for s in steps}) == 60  # each step once, none lost
    assert len(bodies) <= 6, [len(b["steps"]) for b in bodies]  # ~3 s of steps at 1 s an answer
    assert max(len(b["steps"]) for b in bodies) >= 10  # what came meanwhile went as one request


def test_429_waits_as_long_as_retry_after_says(tmp_path):
    fill_spool(tmp_path, batches=1, steps=10)
    with ScriptedServer([(429, {"Retry-After": "1"})]) as srv:
        sender = Sender(Spool(tmp_path), HttpTransport(srv.url, "t", timeout=5))
        sender.backoff = Backoff(base=0.01, cap=0.01)  # the header, not the backoff, sets the wait
        _deliver_until_done(sender)
        (t0, _), (t1, body) = srv.requests
    assert 1.0 <= t1 - t0 < 1.6
    assert json.loads(body)["seq"] == 0


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 422])
def test_other_4xx_are_never_retried(tmp_path, status):
    fill_spool(tmp_path, batches=2, steps=10)
    with ScriptedServer([(status, {})]) as srv:
        sender = Sender(Spool(tmp_path), HttpTransport(srv.url, "t", timeout=5))
        assert _deliver_until_done(sender) == 1
        sent = [json.loads(b)["seq"] for _, b in srv.requests]
    assert sent == [0, 1]  # the refused batch was tried once; the next one still went
    assert sender.stats.rejected_batches == 1 and sender.stats.sent_batches == 1
    assert str(status) in sender.stats.errors[0]


def test_413_splits_the_batch_until_the_parts_fit_and_all_of_it_arrives(settings, sessions, tmp_path):
    small = settings.model_copy(update={"max_batch_events": 300})
    server = start_server(small)
    try:
        token = make_token(sessions)
        written = fill_spool(tmp_path, batches=2, steps=1000)
        sender = Sender(Spool(tmp_path), HttpTransport(server.url, token, timeout=10))
        _deliver_until_done(sender)
        assert sender.stats.split_batches >= 2 * 3  # 1000 -> 500 -> 250: three splits per batch
        assert sender.stats.rejected_batches == 0
        with api(server.url, token) as c:
            [job] = jobs(c)
            assert job["steps"] == written
            # A redelivery of the same batch is recognised part by part: nothing doubles.
            fill_spool(tmp_path, batches=2, steps=1000)
            _deliver_until_done(Sender(Spool(tmp_path), HttpTransport(server.url, token, timeout=10)))
            assert jobs(c)[0]["steps"] == written
    finally:
        server.stop()
