"""From compile events to compilations per function and the "recompiling" judgement: pure functions
the job page, the API, the performance card and the alert all call, so they agree.

A function's warm-up is its first compilation (JAX compiles a jitted function once per distinct
input shape, dtype and static argument); each compilation after it is a recompilation. A function
that recompiles ``RECOMPILE_MIN`` times or more is recompiling: its inputs change shape (a last
partial batch, unpadded sequences) or a Python value it closes over changes. Hosts of a slice
compile the same programs, so a function's figures are those of the host that compiled it most.

>>> rows = [(0, float(t), {"function": "train_step", "duration": 1.0, "step": t}) for t in range(5)]
>>> s = summarize(rows)
>>> s[0].count, s[0].recompiles, s[0].total_s, recompiling(s)
(5, 4, 5.0, ['train_step'])
"""

from __future__ import annotations

from collections.abc import Iterable

from tpuwatch.server.compiles.schemas import FunctionCompiles

RECOMPILE_MIN = 3  # recompilations after the warm-up that make a function "recompiling"
ACTIVE_S = 600.0  # the alert holds while the last recompilation is this recent


def _num(v) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0 else None


def _int(v) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def summarize(rows: Iterable[tuple[int, float, dict]]) -> list[FunctionCompiles]:
    """``rows``: (host, ts, data) of compile events in time order -> one entry per function."""
    per: dict[tuple[str, int], FunctionCompiles] = {}
    for host, ts, data in rows:
        if not isinstance(data, dict):
            continue
        name = str(data.get("function") or "?")[:200]
        framework = str(data.get("framework") or "jax")[:32]
        duration = _num(data.get("duration"))
        step = _int(data.get("step"))
        # A TF retracing warning says how many of the function's last calls traced (it repeats,
        # counting on): the largest count said is the traces known.
        retraces = _int(data.get("retraces"))
        f = per.get((name, host))
        if f is None:
            f = per[(name, host)] = FunctionCompiles(
                function=name, framework=framework, host_index=host, count=0, recompiles=0,
                total_s=None, max_s=None, first_ts=ts, last_ts=ts, first_step=step, last_step=step,
            )  # fmt: skip
        f.count = max(f.count, retraces) if retraces else f.count + 1
        f.recompiles = f.count - 1
        if duration is not None:
            f.total_s = (f.total_s or 0.0) + duration
            f.max_s = max(f.max_s or 0.0, duration)
        f.cache_hits += data.get("cache") == "hit"
        f.cache_misses += data.get("cache") == "miss"
        f.last_ts = max(f.last_ts, ts)
        if step is not None:
            f.last_step = step
            f.first_step = step if f.first_step is None else f.first_step
    best: dict[str, FunctionCompiles] = {}
    for (name, _), f in per.items():
        if name not in best or (f.count, -f.host_index) > (best[name].count, -best[name].host_index):
            best[name] = f
    return sorted(best.values(), key=lambda f: (-f.count, -(f.total_s or 0.0), f.function))


def recompiling(functions: list[FunctionCompiles], since: float | None = None) -> list[str]:
    """Names of the functions recompiling after their warm-up (the last one after ``since``).
    ``?`` (a JAX too old to name what it compiled) is many functions, never one recompiling."""
    return [
        f.function
        for f in functions
        if f.recompiles >= RECOMPILE_MIN and (since is None or f.last_ts >= since) and f.function != "?"
    ]


def describe(f: FunctionCompiles) -> str:
    """One line about a function's compilations.

    >>> describe(FunctionCompiles(function="train_step", framework="jax", host_index=0, count=5,
    ...     recompiles=4, total_s=2.5, max_s=1.0, first_ts=0, last_ts=9, first_step=1, last_step=40))
    'train_step compiled 5 times (4 after its first), 2.50 s in all, the last at step 40'
    """
    verb = "traced" if f.framework == "tensorflow" else "compiled"
    text = f"{f.function} {verb} {f.count} times ({f.recompiles} after its first)"
    if f.total_s is not None:
        text += f", {f.total_s:.2f} s in all"
    if f.last_step is not None:
        text += f", the last at step {f.last_step}"
    return text
