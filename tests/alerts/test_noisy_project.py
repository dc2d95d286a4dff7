"""One project's flood of alerts does not hold back another project's.

The review's case: 10,000 short jobs from one token made 10,015 ``lost`` alerts and ~20,000 queued
deliveries, sent first in first out across all projects at ~1.3 sends/s: another project's
failed-job webhook was still pending 158 s later. Here at CI scale (100 lost jobs, a receiver that
takes 0.1 s a request: 10 s of sends in FIFO order), on loopback, bounded in time.
"""

from __future__ import annotations

import time

import httpx

from tests.alerts.conftest import fast
from tests.alerts.receivers import WebhookReceiver
from tests.conftest import make_token, start_server
from tests.helpers import api, wait_until

NOISY_JOBS = 100
CAP = 5


def _batch(run_id: str, events: list | None = None) -> dict:
    now = time.time()
    return {
        "stream": run_id,
        "seq": 0,
        "run": {"run_id": run_id, "job": run_id},
        "steps": [[1, now, 0.1, 0.0]],
        "events": events or [],
    }


def flood(url: str, token: str, jobs: int, prefix: str = "short") -> None:
    """``jobs`` one-batch jobs that then go quiet (each becomes lost)."""
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as c:
        for i in range(jobs):
            r = c.post("/api/v1/ingest", json=_batch(f"{prefix}-{i}"))
            assert r.status_code in (200, 503), r.text


def test_a_flooding_project_gets_a_summary_and_another_projects_failure_arrives_at_once(settings, sessions):
    noisy_hook, quiet_hook = WebhookReceiver(), WebhookReceiver()
    noisy_hook.delay = 0.15
    server = start_server(
        fast(
            settings,
            lost_after_seconds=1.0,
            alert_webhook_allow="127.0.0.1",
            alert_project_max_per_minute=CAP,
        )
    )
    try:
        noisy, quiet = make_token(sessions, "noisy"), make_token(sessions, "quiet")
        for token, hook in ((noisy, noisy_hook), (quiet, quiet_hook)):
            with api(server.url, token) as c:
                r = c.post("/api/v1/alerts/channels", json={"kind": "webhook", "target": hook.url})
                assert r.status_code == 201, r.text
        flood(server.url, noisy, NOISY_JOBS)
        wait_until(lambda: len(noisy_hook.bodies) >= 1, timeout=20)  # the flood's alerts are going out
        started = time.monotonic()
        with api(server.url, quiet) as c:
            exit_event = [time.time(), "exit", "", {"code": 1, "signal": None}]
            assert c.post("/api/v1/ingest", json=_batch("crash", [exit_event])).status_code == 200
        wait_until(lambda: quiet_hook.firing(), timeout=10)
        took = time.monotonic() - started
        summary = wait_until(lambda: [t for t in noisy_hook.texts() if "[SUMMARY]" in t], timeout=70)
    finally:
        server.stop()
        noisy_hook.close()
        quiet_hook.close()
    assert took < 10
    assert "failed" in quiet_hook.firing()[0]
    assert len(noisy_hook.firing()) <= CAP + 1  # one minute's budget (and the next minute's first)
    assert "jobs lost in project noisy" in summary[0]
