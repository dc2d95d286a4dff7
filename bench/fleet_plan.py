"""The scenarios of bench/bench_fleet.py, as plans for the host emulator (bench/emulator.py).

- ``job``: one job of 4,096 hosts at 1 step/s (a multislice run), every host starting together.
- ``fleet``: a team's 100 jobs, 3,632 hosts in all: 40 of 8 hosts, 25 of 16, 15 of 32, 10 of 64,
  6 of 128 and 4 of 256, at 1 to 4 steps/s, starting over the first 20 s. Along the way one job
  stalls (its hosts stay alive and heartbeat, as under the sidecar), one slows down to a third of
  its speed, one fails (an error on host 0, every host exits 1) and ten end well.
- ``short``: both at CI's scale (a 256-host job, a 12-job fleet), with the alert settings scaled
  down (``SHORT_ENV``) so that the stall, the slowdown and the failure still alert within it.

>>> jobs = fleet("s", "tok", 300.0)
>>> len(jobs), sum(j["hosts"] for j in jobs), sum(1 for j in jobs if j.get("end"))
(100, 3632, 11)
"""

from __future__ import annotations

import uuid

SIZES = [8] * 40 + [16] * 25 + [32] * 15 + [64] * 10 + [128] * 6 + [256] * 4
RATES = (1.0, 2.0, 3.0, 4.0)
STALL, SLOW, FAIL = "stalls", "slows", "fails"  # the jobs' names say what happens to them
# The short form's alert settings: the stall floor, the slowdown window and the evaluation
# interval scaled down with the run (defaults: 120 s, 60 s, 5 s).
SHORT_ENV = {
    "TPUWATCH_STALL_FLOOR_SECONDS": "8",
    "TPUWATCH_SLOWDOWN_WINDOW_SECONDS": "8",
    "TPUWATCH_ALERT_EVAL_SECONDS": "1",
}


def _job(name: str, token: str, hosts: int, rate: float, **more) -> dict:
    return dict(name=name, run_id=uuid.uuid4().hex, token=token, hosts=hosts, rate=rate, **more)


def one_job(prefix: str, token: str, hosts: int = 4096, rate: float = 1.0) -> list[dict]:
    return [_job(f"{prefix}-{hosts}", token, hosts, rate)]


def fleet(prefix: str, token: str, seconds: float) -> list[dict]:
    """The 100 jobs; what happens to them is placed in fractions of ``seconds`` (300 s: the stall
    at 60 s, the slowdown at 90 s, the failure at 120 s, ends from 150 s)."""
    at = lambda share: round(seconds * share, 1)  # noqa: E731
    jobs = []
    for i, hosts in enumerate(SIZES):
        start = round(20.0 * ((i * 37) % 100) / 100, 2)  # spread over the first 20 s, sizes mixed
        jobs.append(_job(f"{prefix}-j{i:03d}-{hosts}h", token, hosts, RATES[i % 4], start=start))
    # The special jobs: a mid-size one each, at a rate that gives the rules steps to learn from.
    stall, slow, fail = jobs[55], jobs[71], jobs[85]  # 16, 32 and 64 hosts
    stall.update(name=f"{prefix}-{STALL}-{stall['hosts']}h", rate=1.0, stall_at=at(0.2))
    slow.update(name=f"{prefix}-{SLOW}-{slow['hosts']}h", rate=2.0, slow_at=at(0.3))
    fail.update(name=f"{prefix}-{FAIL}-{fail['hosts']}h", rate=2.0, end=at(0.4), ending="failed")
    for k, i in enumerate(range(3, 100, 10)):  # ten jobs end well, one every 12 s from half-way
        if jobs[i] not in (stall, slow, fail):
            jobs[i].update(end=at(0.5) + 12.0 * k)
    return jobs


def short_fleet(prefix: str, token: str, seconds: float) -> list[dict]:
    """12 jobs of 8 to 32 hosts (216 hosts), the same events, for CI."""
    at = lambda share: round(seconds * share, 1)  # noqa: E731
    sizes = [8, 8, 8, 8, 16, 16, 16, 16, 32, 32, 32, 24]
    jobs = [
        _job(f"{prefix}-j{i:02d}-{h}h", token, h, RATES[i % 4], start=i * 0.3) for i, h in enumerate(sizes)
    ]
    jobs[1].update(name=f"{prefix}-{STALL}-8h", rate=4.0, stall_at=at(0.3))
    jobs[5].update(name=f"{prefix}-{SLOW}-16h", rate=4.0, slow_at=at(0.4))
    jobs[9].update(name=f"{prefix}-{FAIL}-32h", rate=2.0, end=at(0.4), ending="failed")
    jobs[3].update(end=at(0.6))
    return jobs
