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


def _hang(settings, sessions, webhook, tmp_path, name: str, odd: bool):
    server = start_server(fast(settings, webhook.url))
    token = make_token(sessions)
    pod = Pod(server.url, token, name, tmp_path / "spool", hosts=HOSTS)
    try:
        with api(server.url, token) as c:
            job = wait_until(lambda: (j := wait_for_job(c, name)) and j["hosts"] == HOSTS and j, timeout=30)
            wait_until(lambda: c.get(f"/api/v1/jobs/{job['id']}/device").json()["hosts"] == HOSTS, timeout=30)
            for fake in pod.fakes:
                fake.place("all-reduce.3", queued=1)
            if odd:  # host 17's cores ran dry: nothing running, nothing queued; its Python waits on input
                pod.fakes[ODD].place("", program=b"", queued=0)
            last_step = pod.hang(stacks={ODD: ("next", 41)} if odd else None)
            wait_until(lambda: any("cores:" in t for t in webhook.firing()), timeout=40)
            told_after = webhook.times[-1] - last_step
            alert = c.get("/api/v1/alerts").json()["alerts"][0]
            page = c.get(f"/jobs/{job['id']}").text
            view = c.get(f"/api/v1/jobs/{job['id']}/device").json()
    finally:
        pod.close()
        server.stop()
    return told_after, alert, page, view


def test_a_hung_slice_names_the_host_whose_cores_are_elsewhere(settings, sessions, webhook, tmp_path):
    told_after, alert, page, view = _hang(settings, sessions, webhook, tmp_path, "pod-hang", odd=True)
    said = f"host {ODD}: cores idle, queue empty, Python in `next` (train.py:41)"
    said += "; 63 hosts wait in `all-reduce.3`"
    assert alert["condition"] == "stalled"
    assert said in alert["summary"], alert["summary"]
    assert said in webhook.firing()[-1]
    assert said in page  # the job page's device section says it too
    assert [g["hosts"] for g in view["cores"]["groups"]] == [[h for h in range(HOSTS) if h != ODD], [ODD]]
    # The stall window (2 s here) plus 30 s, at most.
    assert told_after < 2.0 + 30.0, told_after


def test_a_slice_hung_all_in_one_op_names_no_host(settings, sessions, webhook, tmp_path):
    _, alert, _, _ = _hang(settings, sessions, webhook, tmp_path, "pod-same", odd=False)
    assert "cores: all 64 hosts wait in `all-reduce.3`" in alert["summary"]
    assert "the whole slice is in that op" in alert["summary"]
    assert not re.search(r"cores: host \d+", alert["summary"])
