"""The performance card of a job that keeps recompiling, from the compilations the framework
reported (not guessed from long steps): it names the functions, how often and for how long."""

from __future__ import annotations

from tpuwatch.server.compiles.rules import describe
from tpuwatch.server.compiles.schemas import JobCompiles
from tpuwatch.server.triage.cards import Card

SUBTYPE = "recompilation"


def recompilation_card(data: JobCompiles) -> Card | None:
    """The card naming every recompiling function, or None.

    >>> from tpuwatch.server.compiles.schemas import FunctionCompiles
    >>> f = FunctionCompiles(function="train_step", framework="jax", host_index=0, count=5,
    ...     recompiles=4, total_s=2.0, max_s=1.0, first_ts=0, last_ts=9, first_step=1, last_step=5)
    >>> recompilation_card(JobCompiles(job_id=1, compilations=5, total_s=2.0, functions=[f],
    ...     recompiling=["train_step"], points=[])).title
    'train_step recompiled 4 times after its warm-up'
    """
    found = [f for f in data.functions if f.function in data.recompiling]
    if not found:
        return None
    top = found[0]
    names = ", ".join(f.function for f in found[:5])
    title = (
        f"{top.function} recompiled {top.recompiles} times after its warm-up"
        if len(found) == 1
        else f"{len(found)} functions keep recompiling: {names}"
    )
    spent = sum(f.total_s or 0.0 for f in found)
    tf = any(f.framework == "tensorflow" for f in found)
    fixes = [
        "Feed fixed shapes: batch with drop_remainder=True, pad sequences to a few bucket lengths.",
        "Pass Python values that change (a step counter, a flag) as arrays, or mark the ones that "
        "select a program as static and keep them to a few values.",
    ]
    if tf:
        fixes.append(
            "Give the tf.function an input_signature with None for the dimensions that vary, "
            "or use reduce_retracing=True."
        )
    else:
        fixes.append(
            "Set jax.config.update('jax_explain_cache_misses', True) to have JAX say what changed "
            "between two compilations of the function."
        )
    fixes.append(
        "Turn on the persistent compilation cache (jax_compilation_cache_dir) so a restart does "
        "not pay the same compilations again."
    )
    return Card(
        "performance",
        SUBTYPE,
        title,
        0.9,
        "; ".join(describe(f) for f in found[:5]),
        None,
        "Each new input shape, dtype or static value makes the framework trace and compile the "
        "program again; while it compiles, the accelerator does no training.",
        fixes,
        {
            "functions": [f.function for f in found],
            "recompiles": {f.function: f.recompiles for f in found},
            "compile_s": round(spent, 3),
            "measured": True,
        },
    )


def with_measured(cards: list[dict], data: JobCompiles | None) -> list[dict]:
    """The page's performance cards with the measured recompilation card in place of the one
    guessed from long steps, whenever the job reported its compilations."""
    if data is None or not data.compilations:
        return cards
    out = [c for c in cards if c.get("subtype") != SUBTYPE]
    card = recompilation_card(data)
    if card is not None:
        out.insert(0, card.to_dict())
    return out
