"""A slice stores every step of its reference hosts and only the deviating steps of the others,
while counts, last steps, rollups and step charts lose nothing."""

import time

from sqlalchemy import func, select

from tests.conftest import make_token
from tpuwatch.server.db import transaction
from tpuwatch.server.ingest.schemas import Batch
from tpuwatch.server.ingest.service import ingest
from tpuwatch.server.models import Job, JobHost, Step, StepRollup
from tpuwatch.server.series import rollups
from tpuwatch.server.series.service import step_series
from tpuwatch.server.series.thinning import FULL_STEP_HOSTS
from tpuwatch.server.tokens.service import authenticate

HOSTS = FULL_STEP_HOSTS + 4
T0 = time.time() - 3600


def _rows(host, lo, hi):
    out = []
    for i in range(lo, hi):
        d, w = 0.5, 0.01
        if host == HOSTS - 1 and i == 150:
            d = 4.0  # one slow step on a summarised host
        if host == HOSTS - 2 and 200 <= i < 203:
            w = 0.4  # input stalls on another
        out.append([i, T0 + i * 0.5, d, w])
    return out


def test_a_slice_keeps_reference_hosts_whole_and_only_deviations_of_the_rest(sessions):
    token = make_token(sessions)
    with transaction(sessions) as s:
        principal = authenticate(s, token)
    seq = 0
    for lo in range(0, 320, 80):  # batches interleaved across hosts, as a slice sends them
        for host in range(HOSTS):
            batch = Batch(
                stream=f"slice-{host}",
                seq=seq,
                run={"run_id": "slice", "job": "slice", "host": host},
                steps=_rows(host, lo, lo + 80),
            )
            seq += 1
            with transaction(sessions) as s:
                job_id = ingest(s, principal, batch).job_id
    with transaction(sessions) as s:
        rows = dict(
            s.execute(
                select(Step.host_index, func.count()).where(Step.job_id == job_id).group_by(Step.host_index)
            ).all()
        )
        kept = s.scalars(select(Step.step).where(Step.job_id == job_id, Step.host_index >= FULL_STEP_HOSTS))
        kept = sorted(kept)
        rolled = dict(
            s.execute(
                select(StepRollup.host_index, func.sum(StepRollup.n))
                .where(StepRollup.job_id == job_id, StepRollup.level == 0)
                .group_by(StepRollup.host_index)
            ).all()
        )
        job = s.get(Job, job_id)
        hosts = {h.host_index: h for h in s.scalars(select(JobHost).where(JobHost.job_id == job_id))}
        series = step_series(s, job, points=1000)
        before = rolled.copy()
        rollups.rebuild(s, job_id)  # must not shrink the summarised hosts' rollups to their few rows
        after = dict(
            s.execute(
                select(StepRollup.host_index, func.sum(StepRollup.n))
                .where(StepRollup.job_id == job_id, StepRollup.level == 0)
                .group_by(StepRollup.host_index)
            ).all()
        )
    assert all(rows[h] == 320 for h in range(FULL_STEP_HOSTS))
    # The first batch of the job came before any usual step was known: hosts past the reference
    # ones stored it whole only while nothing was known (the very first host's batch).
    assert kept == [150, 200, 201, 202]
    assert all(rolled[h] == 320 for h in range(HOSTS)) and after == before
    assert job.steps == HOSTS * 320 and job.last_step == 319
    assert all(hosts[h].steps == 320 and hosts[h].last_step == 319 for h in range(HOSTS))
    lines = {x.host for x in series.series if x.metric == "step_time"}
    assert lines == set(range(HOSTS)) and series.source == "mixed"
    slow = next(x for x in series.series if x.metric == "step_time" and x.host == HOSTS - 1)
    assert max(slow.y) == 4.0 and slow.x[slow.y.index(4.0)] == 150
