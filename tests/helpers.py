"""Small helpers the tests share: an HTTP client with a token, and waiting for a condition."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time

import httpx


def api(server_url: str, token: str | None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=server_url, headers=headers, timeout=30)


def wait_until(predicate, timeout: float = 20.0, interval: float = 0.05):
    """Poll ``predicate`` until it returns a true value; fail the test with its last value."""
    deadline = time.monotonic() + timeout
    value = None
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout}s (last value: {value!r})")


def jobs(client: httpx.Client) -> list[dict]:
    resp = client.get("/api/v1/jobs")
    resp.raise_for_status()
    return resp.json()["jobs"]


def wait_for_job(
    client: httpx.Client, name: str, status: str | None = None, timeout: float = 20.0, ended: bool = False
) -> dict:
    """The job called ``name`` once it shows up (with ``status``, when given; once it exited, with
    ``ended``: a ``diverged`` job is diverged before it exits too)."""

    def ready(j: dict) -> bool:
        done = not ended or j["ended_at"] is not None
        return j["name"] == name and status in (None, j["status"]) and done

    return wait_until(lambda: next((j for j in jobs(client) if ready(j)), None), timeout=timeout)


def primary_category(text: str) -> str:
    """The category of the primary card the classifier gives ``text``; "unknown" without one."""
    from tpuwatch.server.triage.engine import classify_text

    cards = classify_text(text)
    return cards[0].category if cards else "unknown"


def run_async(make_coro, timeout: float = 120.0):
    """``asyncio.run(make_coro())`` on a thread of its own: the browser tests' sync Playwright keeps
    an event loop running on the main thread for the whole session, where asyncio.run refuses."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(make_coro())).result(timeout)
