"""Under ``tpuwatch agent run`` the child writes one batch per interval the server asked of its
host, not four a second: a slice in sidecar mode is paced like in-process agents."""

from __future__ import annotations

import json
import time

from tests.agent.test_sidecar import sidecar
from tests.conftest import make_token, start_server
from tests.helpers import api, wait_for_job
from tpuwatch.runmeta import PACE_FILE
from tpuwatch.server.ingest import keys, service

SECONDS = 7


def test_the_child_under_the_sidecar_writes_a_batch_per_interval_the_server_asked(
    settings, sessions, spool_dir, tmp_path, monkeypatch
):
    token = make_token(sessions)
    requests = []  # the batches each storing round of the in-process server was given
    store = service.store
    monkeypatch.setattr(
        service, "store", lambda session, pending: requests.append(len(pending)) or store(session, pending)
    )
    # A budget so small that even one host is asked for the longest interval: 3 s.
    paced = settings.model_copy(update={"ingest_cpu_budget": 1e-4, "ingest_max_pace_seconds": 3.0})
    server = start_server(paced)
    proc = None
    try:
        proc = sidecar(
            server.url,
            token,
            "paced",
            f"""
            import time, tpuwatch
            mon = tpuwatch.init()
            end = time.time() + {SECONDS}
            while time.time() < end:
                with mon.step():
                    time.sleep(0.05)
            mon.close()
            """,
            tmp_path,
            "--spool-dir",
            str(spool_dir),
        )
        time.sleep(SECONDS / 2)
        paces = [p.read_text() for p in spool_dir.rglob(PACE_FILE)]
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        with api(server.url, token) as c:
            job = wait_for_job(c, "paced", "succeeded")
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
        server.stop()
    assert paces == ["3.000"]  # the sidecar passed the server's pace down to its child
    assert job["steps"] > 100  # about 20 steps a second for 7 s, every one stored
    with sessions() as s:
        stored = keys.stored_count(s)  # this test's database holds this job only
    # A request every 0.25 s from the child alone would be ~28; at one per ~3 s from each of the
    # child and its sidecar (plus their first and last) it is about a dozen. (A request merges the
    # batches its segment holds, each stored under its own key: there are more keys than requests.)
    assert 2 <= sum(requests) <= 14, requests
    assert stored >= sum(requests), (stored, requests)


def test_the_child_holds_its_segment_while_its_sidecar_awaits_an_answer(spool_dir, tmp_path):
    from tests.reliability.fakes import ScriptedServer

    # Each answer takes 2.5 s; the child's interval is 1 s. Closing a segment every interval queued
    # 6 requests with steps on the busy server, and the sidecar's drain ran out before the last
    # ones; holding the segment while one is out sends 3, and every step.
    with ScriptedServer([], delay=2.5) as srv:
        proc = sidecar(
            srv.url,
            "t",
            "held",
            """
            import time, tpuwatch
            mon = tpuwatch.init()
            end, n = time.time() + 8, 0
            while time.time() < end:
                with mon.step():
                    time.sleep(0.05)
                n += 1
            mon.close()
            print(n)
            """,
            tmp_path,
            "--spool-dir",
            str(spool_dir),
            "--no-tpu-metrics",
        )
        out, err = proc.communicate(timeout=90)
        bodies = [json.loads(body) for _, body in srv.requests]
    assert proc.returncode == 0, err
    with_steps = [b for b in bodies if b["steps"]]
    steps = [s[0] for b in with_steps for s in b["steps"]]
    assert len(steps) == len(set(steps)) == int(out.decode().split()[-1])  # every step, once
    assert len(with_steps) <= 4, [len(b["steps"]) for b in with_steps]
