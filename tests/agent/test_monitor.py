import json
import random
import time

from tpuwatch.monitor import Monitor
from tpuwatch.spool import Spool, read_records


def _spooled(mon: Monitor) -> list[dict]:
    batches = []
    for seg in Spool(mon.spool_dir).ready():
        records, _, _ = read_records(seg)
        batches += [json.loads(r.payload) for r in records]
    return batches


def test_steps_number_themselves_and_carry_their_input_wait(spool_dir):
    mon = Monitor("j", send=False)
    for _ in range(3):
        with mon.input_wait():
            time.sleep(0.01)
        with mon.step():
            pass
    with mon.step(10):
        pass
    mon.close()
    steps = [s for b in _spooled(mon) for s in b["steps"]]
    assert [s[0] for s in steps] == [1, 2, 3, 10]
    assert all(s[3] >= 0.009 for s in steps[:3])
    assert steps[3][3] == 0.0


def test_wrap_times_each_next_as_input_wait(spool_dir):
    mon = Monitor("j", send=False)

    def slow():
        for i in range(3):
            time.sleep(0.01)
            yield i

    seen = []
    for item in mon.wrap(slow()):
        with mon.step():
            seen.append(item)
    mon.close()
    steps = [s for b in _spooled(mon) for s in b["steps"]]
    assert seen == [0, 1, 2]
    assert len(steps) == 3 and all(s[3] >= 0.009 for s in steps)


def test_full_queue_drops_and_counts_instead_of_blocking(spool_dir):
    mon = Monitor("j", send=False, max_queue=5, flush_interval=60)
    for _ in range(12):
        with mon.step():
            pass
    assert mon.dropped == 7
    mon.close()
    batches = _spooled(mon)
    assert sum(len(b["steps"]) for b in batches) == 5
    assert batches[-1]["dropped"] == 7


def test_close_returns_quickly_when_the_server_is_down_and_keeps_the_data(spool_dir):
    mon = Monitor("j", server="http://127.0.0.1:9", token="x")  # port 9: nothing listens
    for _ in range(100):
        with mon.step():
            pass
    t0 = time.monotonic()
    mon.close(timeout=2.0)
    assert time.monotonic() - t0 < 5.0
    steps = [s for b in _spooled(mon) for s in b["steps"]]
    assert len(steps) == 100


def test_an_exception_in_the_training_block_propagates_untouched(spool_dir):
    mon = Monitor("j", send=False)
    try:
        with mon.step():
            raise KeyError("mine")
    except KeyError as exc:
        assert exc.args == ("mine",)
    mon.close()


def test_an_oversized_event_is_fitted_to_the_servers_bounds_and_its_steps_still_arrive(
    live_server, sessions, spool_dir
):
    """The server refuses a batch whole when one field is past its bound (issue 17.7): the agent
    keeps its events within the bounds, so the steps that travel with a huge event still arrive."""
    from tests.conftest import make_token
    from tests.helpers import api, wait_for_job

    token = make_token(sessions)
    name = "n" * 300
    mon = Monitor(name, server=live_server.url, token=token, attrs={"notes": "a" * 100_000})
    for _ in range(50):
        with mon.step():
            pass
    progress_bar = "#" * (1 << 20)
    mon.event("error", "boom\x00" + "x" * 600_000, context=[progress_bar] * 40, loss=float("nan"))
    mon.close(timeout=10)
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "n" * 200)  # cut to the server's 200 characters
        assert job["steps"] == 50
        [err] = c.get(f"/api/v1/jobs/{job['id']}/events", params={"kind": "error"}).json()["events"]
    assert err["message"].startswith("boom\ufffd") and "characters cut" in err["message"]
    assert err["data"]["loss"] == "NaN" and len(json.dumps(err["data"])) <= 64 * 1024


def test_the_program_s_seeded_random_draws_are_the_same_with_a_sending_monitor(tmp_path):
    from tests.reliability.fakes import ScriptedServer, monitor_for

    def draws(mon):
        random.seed(1234)
        out = []
        for _ in range(40):
            if mon is not None:
                with mon.step():
                    time.sleep(0.02)  # the monitor's threads jitter their pace and backoff meanwhile
            else:
                time.sleep(0.02)
            out.append(random.random())
        return out

    alone = draws(None)
    with ScriptedServer([(503, {})] * 3) as srv:  # push-back: backoff jitter as well as the pace's
        mon = monitor_for(srv, tmp_path, every=0.05)
        watched = draws(mon)
        mon.close(timeout=5)
    assert len(srv.requests) >= 3
    assert watched == alone
