"""``POST /api/v1/ingest``: read the body within limits, validate, store."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import time
import zlib

import anyio.to_thread
from fastapi import APIRouter, HTTPException, Request, Response
from pydantic import ValidationError
from starlette.requests import ClientDisconnect

from tpuwatch.server.deps import bearer_token, check_throttle, checked_principal
from tpuwatch.server.ingest.schemas import Batch, BatchAdapter, IngestResult, TimeWindow
from tpuwatch.server.ingest.writer import Delivery
from tpuwatch.server.settings import Settings
from tpuwatch.wire import Ask

api = APIRouter(prefix="/api/v1", tags=["ingest"])

# A body this small is checked on the event loop (about 0.1 ms for a host's few seconds of steps):
# handing it to a worker thread and back cost more than checking it. Larger ones (a spool sent
# after an outage, up to max_body_bytes) go to a thread, so the loop never stalls on one.
INLINE_BYTES = 32 * 1024

_BODY_SCHEMA = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": Batch.model_json_schema(ref_template="#/components/schemas/{model}")
            }
        },
    }
}


async def read_body(request: Request, limit: int, decoded_limit: int) -> bytes:
    """The request body, refused with 413 as soon as it passes ``limit`` (never read whole)."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise HTTPException(
            413, f"body of {declared} bytes is over the {limit}-byte limit: send smaller batches"
        )
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise HTTPException(413, f"body is over the {limit}-byte limit: send smaller batches")
            chunks.append(chunk)
    except ClientDisconnect:
        # The agent gave up (its timeout) while the body came: nobody hears an answer, and a
        # traceback in the log for each one would drown the server's log under load.
        raise HTTPException(400, "the client went away before its body arrived") from None
    body = b"".join(chunks)
    encoding = request.headers.get("content-encoding", "identity").lower()
    if encoding == "gzip":
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            body = d.decompress(body, decoded_limit)
        except zlib.error as exc:
            raise HTTPException(400, f"body is not valid gzip: {exc}") from None
        if d.unconsumed_tail:
            raise HTTPException(413, f"body unpacks to over {decoded_limit} bytes: send smaller batches")
    elif encoding not in ("identity", ""):
        raise HTTPException(415, f"Content-Encoding {encoding!r} is not supported; use gzip or none")
    return body


@api.post("/ingest", response_model=IngestResult, openapi_extra=_BODY_SCHEMA)
async def ingest(request: Request):
    """Store one batch from an agent. Idempotent on (stream, seq, part).

    The body is read on the event loop and checked there when it is small (a paced host's batch),
    in a worker thread otherwise (at most ``ingest_threads`` at once); the process's ingest writer
    (writer.py) then checks the token and stores the batch with whatever else has queued, in one
    transaction. While it waits, the request holds no thread and no database connection
    (app/ops/admission.py tells why that matters).

    This is the one route every host of every job calls, hundreds of times a second: it takes
    no dependencies (FastAPI solves them per request) and writes its answer itself, checked by
    ``IngestResult`` already."""
    settings: Settings = request.app.state.settings
    token = bearer_token(request)
    if token is None:
        raise HTTPException(
            401, "send 'Authorization: Bearer <token>'", headers={"WWW-Authenticate": "Bearer"}
        )
    check_throttle(request, token)  # on the event loop: a throttled client costs no thread
    body = await read_body(request, settings.max_body_bytes, settings.max_decoded_bytes)
    state = request.app.state
    started = time.monotonic()  # from here on, the server's own delays: checking, queueing, storing
    if len(body) <= INLINE_BYTES:
        delivery = _delivery(request, settings, token, body)
        delivery.cpu_s = 0.0  # the loop's own CPU: pacing measures it as the loop's (ops/pacing.py)
    else:
        delivery = await anyio.to_thread.run_sync(
            _delivery, request, settings, token, body, limiter=state.ingest_threads
        )
    future = state.writer.submit(delivery)
    pacing = getattr(state, "pacing", None)
    try:
        result = await asyncio.wait_for(asyncio.wrap_future(future), settings.ingest_store_timeout_seconds)
        if pacing is not None:
            pacing.took(time.monotonic() - started)  # a writer falling behind slows the hosts
        response = Response(result.model_dump_json(), media_type="application/json")
        asks = getattr(state, "device_asks", None)  # the cores' state, asked of a stalled job's hosts
        if asks is not None and (header := asks.header_for(result.job_id)):
            response.headers[Ask.HEADER] = header
        return response
    except TimeoutError:
        if pacing is not None:
            pacing.took(time.monotonic() - started)
        raise HTTPException(
            503,
            f"the batch was not stored within {settings.ingest_store_timeout_seconds:g} s: retry "
            "(a batch stored meanwhile is recognised as a duplicate)",
            headers={"Retry-After": "1"},
        ) from None


def _delivery(request: Request, settings: Settings, token: str, body: bytes) -> Delivery:
    """The batch checked against the limits; a malformed one is told only once its token is
    known good (the writer checks tokens, then answers 422)."""
    started = time.thread_time()
    batch, invalid = None, None
    try:
        batch = _validated(body, settings)
    except HTTPException as exc:
        invalid = exc
    return Delivery(
        token=token,
        batch=batch,
        digest=hashlib.sha256(body).hexdigest(),
        principal_of=functools.partial(checked_principal, request),
        invalid=invalid,
        cpu_s=time.thread_time() - started,
    )


def _validated(body: bytes, settings: Settings) -> Batch:
    try:
        window = TimeWindow.around(
            time.time(), settings.ingest_max_age_days, settings.ingest_max_ahead_seconds
        )
        batch = BatchAdapter.validate_json(body, context={"window": window})
    except ValidationError as exc:
        errors = [{"loc": list(e["loc"])[:6], "msg": e["msg"]} for e in exc.errors(include_url=False)[:10]]
        raise HTTPException(422, {"message": "malformed batch", "errors": errors}) from None
    if batch.size > settings.max_batch_events:
        raise HTTPException(
            413, f"batch holds {batch.size} events; the limit is {settings.max_batch_events}: split it"
        )
    too_long = next((e for e in batch.events if len(e[2]) > settings.max_event_message_chars), None)
    if too_long is not None:
        raise HTTPException(
            413,
            f"an event message is {len(too_long[2])} characters; the limit is "
            f"{settings.max_event_message_chars}: truncate it",
        )
    return batch
