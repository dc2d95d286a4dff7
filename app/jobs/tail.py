"""Each job's window of raw steps on its reference host, kept between reads and topped up with the
rows stored since: the overview of 100 running jobs re-read up to 200,000 rows on every refresh (the
whole window of every job that had a new step) for medians that a few hundred new rows change.

A top-up reads the rows with an id above the highest read and a step above the highest read less
``SLACK`` (so that the index finds them: the window's other rows are not looked at). One host's rows
are stored in the order its agent sent them, one request after the other's answer, so no row of that
host with a lower id commits later; steps come in order but for a retried batch. What a top-up cannot
see (a run that went back to a much earlier step under the same run id) is seen by the whole read
that each window gets every ``REREAD_SECONDS``, as with another reference host, a server restart or
an entry evicted.
"""

from __future__ import annotations

import threading
import time
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Iterable

from sqlalchemy import and_, func, or_, select, text, tuple_
from sqlalchemy.orm import Session

from tpuwatch.server.models import Job, Step

MAX_JOBS = 256  # a window is about 48 KiB (2,048 steps): 12 MiB per server process at most
SLACK = 64  # steps: how far below the highest step read a top-up still looks
REREAD_SECONDS = 60.0


def is_compile(first_step: int, steps: int) -> bool:
    """Whether a window's first step is the job's compilation, left out of its figures: step 0 or 1,
    when later steps exist."""
    return steps > 1 and first_step <= 1


class Tail:
    """The rows of one host's window: steps, durations and input waits, in the order stored.

    >>> t = Tail(0)
    >>> t.add([(1, 1, 9.0, 0.0), (2, 2, 0.5, 0.1), (3, 3, 0.7, 0.1), (2, 2, 0.5, 0.1)])
    >>> t.trim(1); list(t.steps), t.last_id
    ([2, 3], 3)
    """

    def __init__(self, host: int) -> None:
        self.host = host
        self.read_at = time.monotonic()
        self.top = 0  # the highest step read
        self.steps = array("q")
        self.durations = array("d")
        self.waits = array("d")
        self.last_id = 0
        self._ordered = True  # steps ascending: the window's start is found by bisection

    def add(self, rows: Iterable[tuple]) -> None:
        """Append ``(id, step, duration, wait)`` rows in id order, those not read before."""
        for row_id, step, duration, wait in rows:
            if row_id <= self.last_id:
                continue
            if self.steps and step <= self.steps[-1]:
                self._ordered = False
            self.top = max(self.top, step)
            self.steps.append(step)
            self.durations.append(duration)
            self.waits.append(wait)
            self.last_id = row_id

    def trim(self, lo: int) -> None:
        """Forget the steps at or below ``lo``: the window moved on."""
        if self._ordered:
            cut = bisect_right(self.steps, lo)
            if cut:
                del self.steps[:cut], self.durations[:cut], self.waits[:cut]
            return
        keep = [i for i, s in enumerate(self.steps) if s > lo]
        self.steps = array("q", (self.steps[i] for i in keep))
        self.durations = array("d", (self.durations[i] for i in keep))
        self.waits = array("d", (self.waits[i] for i in keep))
        self._ordered = all(a < b for a, b in zip(self.steps, self.steps[1:], strict=False))

    def rows(self) -> tuple[list[float], list[float]]:
        """The window's durations and waits, without the job's first step (compilation) when later
        steps exist."""
        durations, waits = list(self.durations), list(self.waits)
        if self.steps:
            first = 0 if self._ordered else min(range(len(self.steps)), key=self.steps.__getitem__)
            if is_compile(self.steps[first], len(self.steps)):
                del durations[first], waits[first]
        return durations, waits


_tails: OrderedDict[tuple, Tail] = OrderedDict()
_lock = threading.Lock()


def windows(
    session: Session, jobs: list[Job], refs: dict[int, int], width: int
) -> dict[int, tuple[list[float], list[float]]]:
    """Each job's durations and waits (``Tail.rows``) on its reference host ``refs[job.id]`` over its
    last ``width`` steps: the kept windows topped up in one query, the others read whole in another."""
    url = str(session.get_bind().url)
    # A database emptied and filled again (ids restarted) gives another job the same id and run id:
    # its start differs, and a kept window above the job's last step is not this job's.
    key = lambda job: (url, job.id, job.run_id, job.started_at)  # noqa: E731
    kept: dict[int, Tail] = {}
    with _lock:
        for job in jobs:
            tail = _tails.get(key(job))
            due = tail is not None and time.monotonic() - tail.read_at > REREAD_SECONDS
            mine = tail is not None and tail.top <= (job.last_step or 0)
            if mine and not due and job.id in refs and tail.host == refs[job.id]:
                kept[job.id] = tail
                _tails.move_to_end(key(job))
    fresh = {j.id: Tail(refs[j.id]) for j in jobs if j.id in refs and j.id not in kept}
    rows = _rows(session, {i: refs[i] for i in fresh}, width)
    rows.update(_since(session, [j for j in jobs if j.id in kept], kept, width))
    out: dict[int, tuple[list[float], list[float]]] = {}
    with _lock:
        for job in jobs:
            tail = kept.get(job.id) or fresh.get(job.id)
            if tail is None:
                continue
            tail.add(rows.get(job.id, ()))
            tail.trim((job.last_step or 0) - width)
            if job.id in fresh:
                _tails[key(job)] = tail
            out[job.id] = tail.rows()
        while len(_tails) > MAX_JOBS:
            _tails.popitem(last=False)
    return out


def _rows(session: Session, refs: dict[int, int], width: int) -> dict[int, list]:
    """``(id, step, duration, wait)`` of each job's reference host in its window, in id order."""
    if not refs:
        return {}
    q = (
        select(Step.job_id, Step.id, Step.step, Step.duration, Step.input_wait)
        .join(Job, Job.id == Step.job_id)
        .where(
            tuple_(Step.job_id, Step.host_index).in_(list(refs.items())),
            Step.step > func.coalesce(Job.last_step, 0) - width,
        )
        .order_by(Step.job_id, Step.id)
    )
    return _by_job(session, q)


def _since(session: Session, jobs: list[Job], kept: dict[int, Tail], width: int) -> dict[int, list]:
    """The same rows stored since each kept window was read (ids above its ``last_id``, steps from
    ``SLACK`` below its top): per job, a short range of the (job, host, step) index. PostgreSQL joins
    the jobs' bounds as arrays (planning 100 ORed conditions took longer than the reads)."""
    if not jobs:
        return {}
    bounds = []
    for job in jobs:
        t = kept[job.id]
        bounds.append((job.id, t.host, max((job.last_step or 0) - width, t.top - SLACK), t.last_id))
    if session.get_bind().dialect.name == "postgresql":
        ids, hosts, los, lasts = (list(c) for c in zip(*bounds, strict=True))
        return _by_job(session, _SINCE_PG.bindparams(jobs=ids, hosts=hosts, los=los, ids=lasts))
    wanted = [
        and_(Step.job_id == j, Step.host_index == h, Step.step > lo, Step.id > last)
        for j, h, lo, last in bounds
    ]
    q = select(Step.job_id, Step.id, Step.step, Step.duration, Step.input_wait).where(or_(*wanted))
    return _by_job(session, q.order_by(Step.job_id, Step.id))


_SINCE_PG = text(
    "SELECT s.job_id, s.id, s.step, s.duration, s.input_wait "
    "FROM unnest(CAST(:jobs AS bigint[]), CAST(:hosts AS integer[]), CAST(:los AS bigint[]), "
    "CAST(:ids AS bigint[])) AS v(job_id, host, lo, last_id) "
    "JOIN steps s ON s.job_id = v.job_id AND s.host_index = v.host AND s.step > v.lo AND s.id > v.last_id "
    "ORDER BY s.job_id, s.id"
)


def _by_job(session: Session, q) -> dict[int, list]:
    out: dict[int, list] = {}
    for job_id, *row in session.connection().execute(q).all():
        out.setdefault(job_id, []).append(row)
    return out
