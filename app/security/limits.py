"""Body limits shared by the front door and the CSRF check (which reads forms again, inside the gates)."""

from __future__ import annotations

from starlette.types import Message, Receive

from tpuwatch.server.triage.schemas import MAX_TRIAGE_CHARS

MAX_FORM_BYTES = 64 * 1024  # a page form; the front door has read it already, within this
TRIAGE_PATHS = frozenset({"/triage", "/api/v1/triage"})
TRIAGE_BYTES = 4 * MAX_TRIAGE_CHARS + 4096  # a pasted log's characters in UTF-8 at most, and its form


def replayer(body: bytes, receive: Receive) -> Receive:
    """Hands the body read already to the app once, then waits on the real channel (disconnect)."""
    done = False

    async def replay() -> Message:
        nonlocal done
        if done:
            return await receive()
        done = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
