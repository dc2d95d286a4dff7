"""`mon.phase("checkpoint")` reaches the server as begin/end events the evaluator understands."""

from __future__ import annotations

from tests.conftest import make_token
from tests.helpers import api, wait_for_job, wait_until
from tpuwatch.monitor import Monitor


def test_a_phase_is_recorded_as_begin_and_end_events(live_server, sessions, tmp_path):
    token = make_token(sessions)
    mon = Monitor(
        "ckpt", server=live_server.url, token=token, spool_dir=tmp_path, send=True, flush_interval=0.05
    )
    with mon.step():
        pass
    with mon.phase("checkpoint"):
        pass
    mon.close(timeout=10)
    with api(live_server.url, token) as c:
        job = wait_for_job(c, "ckpt")
        events = wait_until(
            lambda: (
                len(e := c.get(f"/api/v1/jobs/{job['id']}/events", params={"kind": "phase"}).json()["events"])
                == 2
                and e
            )
        )
    assert [(e["message"], e["data"]["state"]) for e in events] == [
        ("checkpoint", "begin"),
        ("checkpoint", "end"),
    ]
