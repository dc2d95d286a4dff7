"""A job's outcome from its hosts' exits, counted in the database (``service._settle_job``): failed
as soon as one host failed (the code, signal and time of the failure it learnt first), succeeded once every host
exited cleanly, running until then."""

from __future__ import annotations

from sqlalchemy import select

from tests.conftest import make_token
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest.schemas import Batch, RunInfo
from tpuwatch.server.ingest.service import ingest
from tpuwatch.server.models import Job
from tpuwatch.server.tokens.service import authenticate


def _exit(sessions, principal, run_id: str, host: int, at: float, code=0, signal=None) -> None:
    run = RunInfo.model_construct(run_id=run_id, job=run_id, host=host, attrs={})
    events = [(at, "exit", "", {"code": code, "signal": signal})] if at is not None else []
    batch = Batch.model_construct(
        v=1, stream=f"{run_id}-{host}", seq=0 if at is None else 1, part="", run=run, sent_at=None,
        steps=[(1, 1.0, 0.1, 0.0)], events=events, metrics=[], dropped=0,
    )  # fmt: skip
    with transaction(sessions) as s:
        ingest(s, principal, batch)


def _job(sessions, run_id: str) -> tuple:
    with sessions() as s:
        j = s.scalars(select(Job).where(Job.run_id == run_id)).one()
        return j.status, j.exit_code, j.exit_signal, j.ended_at


def test_a_job_runs_until_every_host_exited_and_then_succeeds_at_the_last_exit(settings, sessions):
    with transaction(sessions) as s:
        principal = authenticate(s, make_token(sessions))
    for h in range(3):
        _exit(sessions, principal, "clean", h, None)
    _exit(sessions, principal, "clean", 0, 10.0)
    _exit(sessions, principal, "clean", 2, 30.0)
    assert _job(sessions, "clean")[0] == "running"
    _exit(sessions, principal, "clean", 1, 20.0)
    assert _job(sessions, "clean") == ("succeeded", 0, None, 30.0)


def test_the_first_host_to_fail_decides_even_while_others_still_run(settings, sessions):
    with transaction(sessions) as s:
        principal = authenticate(s, make_token(sessions))
    for h in range(4):
        _exit(sessions, principal, "broken", h, None)
    _exit(sessions, principal, "broken", 0, 5.0)  # clean
    _exit(sessions, principal, "broken", 1, 40.0, code=None, signal="SIGKILL")
    assert _job(sessions, "broken") == ("failed", None, "SIGKILL", 40.0)
    _exit(sessions, principal, "broken", 2, 30.0, code=2)  # a failure told later changes nothing
    assert _job(sessions, "broken") == ("failed", None, "SIGKILL", 40.0)
    _exit(sessions, principal, "broken", 3, 50.0, code=0, signal="")  # an empty signal is none
    assert _job(sessions, "broken")[0] == "failed"
