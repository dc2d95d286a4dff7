"""A 64-host slice of real agents hangs: the stall alert names the host whose cores are elsewhere
and the op the others wait in, from the cores' state every agent reads once on the server's ask;
with every host in the same place it says so and names no host."""

from __future__ import annotations

import re

from tests.alerts.conftest import fast
from tests.conftest import make_token, start_server
from tests.device.pod import Pod
from tests.helpers import api, wait_for_job, wait_until

HOSTS = 64
ODD = 17
STALL_S = 4.0


def _hang(settings, sessions, webhook, tmp_path, name: str, odd: bool):
    # A 4 s stall window: 64 agents on a shared 2-core machine can pause a second or two.
    server = start_server(fast(settings, webhook.url, stall_floor_seconds=STALL_S))
    token = make_token(sessions)
    pod = Pod(server.url, token, name, tmp_path / "spool", hosts=HOSTS)
    for fake in pod.fakes:  # synchronous training: between steps every host waits in the all-reduce
        fake.place("all-reduce.3", queued=1)
    try:
        with api(server.url, token) as c:
            job = wait_until(lambda: (j := wait_for_job(c, name)) and j["hosts"] == HOSTS and j, timeout=30)
            wait_until(lambda: c.get(f"/api/v1/jobs/{job['id']}/device").json()["hosts"] == HOSTS, timeout=30)
            if odd:  # host 17's cores ran dry: nothing running, nothing queued; its Python waits on input
                pod.fakes[ODD].place("", program=b"", queued=0)
            last_step = pod.hang(stacks={ODD: ("next", 41)} if odd else None)
            needle = f"host {ODD}:" if odd else f"all {HOSTS} hosts wait"
            told = wait_until(lambda: _told(webhook, last_step, needle), timeout=40)
            told_after = told[0] - last_step
            alert = next(a for a in c.get("/api/v1/alerts").json()["alerts"] if a["state"] != "resolved")
            page = c.get(f"/jobs/{job['id']}").text
            view = c.get(f"/api/v1/jobs/{job['id']}/device").json()
    finally:
        pod.close()
        server.stop()
    return told_after, alert, page, view, told[1]


def _told(webhook, since: float, needle: str) -> tuple[float, str] | None:
    """The first firing message after ``since`` that says where the cores are, as ``needle``."""
    for ts, body in zip(webhook.times, webhook.bodies, strict=False):
        text = body.get("text", "")
        if ts > since and "[FIRING]" in text and f"cores: {needle}" in text:
            return ts, body["text"]
    return None


def test_a_hung_slice_names_the_host_whose_cores_are_elsewhere(settings, sessions, webhook, tmp_path):
    told_after, alert, page, view, text = _hang(settings, sessions, webhook, tmp_path, "pod-hang", odd=True)
    said = f"host {ODD}: cores idle, queue empty, Python in `next` (train.py:41)"
    said += "; 63 hosts wait in `all-reduce.3`"
    assert alert["condition"] == "stalled"
    assert said in alert["summary"], alert["summary"]
    assert said in text
    print(f"the stall alert named host {ODD} {told_after:.1f} s after the last step")
    assert said in page  # the job page's device section says it too
    assert [g["hosts"] for g in view["cores"]["groups"]] == [[h for h in range(HOSTS) if h != ODD], [ODD]]
    assert told_after < STALL_S + 30.0, told_after  # the stall window plus 30 s, at most


def test_a_slice_hung_all_in_one_op_names_no_host(settings, sessions, webhook, tmp_path):
    _, alert, _, _, text = _hang(settings, sessions, webhook, tmp_path, "pod-same", odd=False)
    assert "cores: all 64 hosts wait in `all-reduce.3`" in alert["summary"]
    assert "all 64 hosts wait in `all-reduce.3`" in text
    assert "the whole slice is in that op" in alert["summary"]
    assert not re.search(r"cores: host \d+", alert["summary"])
