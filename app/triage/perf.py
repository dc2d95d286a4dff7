"""Performance cards: what the metrics say is slowing a job down.

Pure functions, data in, cards out; the same :class:`~app.triage.cards.Card` shape as error cards,
with ``category="performance"`` and the finding in ``subtype``. Thresholds follow the Cloud TPU
performance guidance: input wait over step time of 5% is worth a look and 20% dominates; the MXU
works on 128-wide tiles and TPU tensors pad the batch to 8 per core (64 on an 8-core TPU).

>>> cards = perf_cards({"step_times": [30.0] + [0.5] * 50, "input_waits": [0.0] + [0.15] * 50})
>>> [c.subtype for c in cards]
['input_bound', 'slow_first_step']
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields

from .cards import Card

CATEGORY = "performance"
INPUT_MODERATE, INPUT_HIGH = 0.05, 0.20
HBM_NEAR = 0.90
SHORT_STEP_S = 0.1  # below this, one host round trip per step is a visible share of the step
SLOW_HOST = 1.2  # a host whose median step is 20% above the others' median
MIN_STEPS = 10  # fewer steps (after the first) are too few to judge speed by
TINY_PARAMETERS = 1_000_000  # a model this small cannot fill the MXU whatever its widths


@dataclass
class JobMetrics:
    """What the server knows about a job's speed. All fields optional; times in seconds."""

    step_times: Sequence[float] = ()  # the step alone: input wait is timed outside it
    input_waits: Sequence[float] = ()  # per step, aligned with step_times
    hbm_used: float | None = None  # bytes (any unit, as long as hbm_limit uses the same)
    hbm_limit: float | None = None
    global_batch_size: int | None = None
    replicas: int | None = None  # cores the batch is split over
    layer_widths: Sequence[int] = ()  # in model order: the last one is the output layer
    parameters: int | None = None
    steps_per_execution: int | None = None
    host_step_times: Mapping[str, float] = field(default_factory=dict)  # host -> median step
    # The page's figures (server/jobs/figures.py), when known: cards quote these, not their own.
    input_share: float | None = None
    window_steps: int | None = None
    step_time_p50: float | None = None
    hbm_share: float | None = None

    @classmethod
    def from_mapping(cls, data: Mapping) -> JobMetrics:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names and v is not None})


def perf_cards(metrics: JobMetrics | Mapping) -> list[Card]:
    """Every performance finding for ``metrics``, the most costly first."""
    m = metrics if isinstance(metrics, JobMetrics) else JobMetrics.from_mapping(metrics)
    found = [
        input_bound(m),
        hbm_near_limit(m),
        slow_host(m),
        recompilation(m),
        few_steps_per_execution(m),
        batch_padding(m),
        layer_padding(m),
        slow_first_step(m),
    ]
    cards = [c for c in found if c is not None]
    return sorted(cards, key=lambda c: -c.confidence)


def _card(subtype, title, confidence, evidence, explanation, fixes, facts) -> Card:
    return Card(
        CATEGORY, subtype, title, round(confidence, 2), evidence, None, explanation, list(fixes), facts
    )


def input_bound(m: JobMetrics) -> Card | None:
    if m.input_share is not None:
        ratio, n = m.input_share, m.window_steps or 0
    else:
        pairs = list(zip(m.step_times, m.input_waits, strict=False))[1:]  # step 1 compiles
        total = sum(s + w for s, w in pairs)  # the wait comes on top of the step
        if not pairs or total <= 0:
            return None
        ratio, n = sum(w for _, w in pairs) / total, len(pairs)
    if n < MIN_STEPS or ratio < INPUT_MODERATE:
        return None
    high = ratio >= INPUT_HIGH
    return _card(
        "input_bound",
        f"Input-bound: {ratio:.0%} of step time waiting for data",
        0.9 if high else 0.7,
        f"input wait / (step time + input wait) = {ratio:.1%} over {n} steps",
        "The accelerator sits idle while the host prepares the next batch; the input pipeline, "
        "not the model, sets the pace.",
        (
            "Overlap input with compute: end the dataset with .prefetch(tf.data.AUTOTUNE).",
            "Parallelise decoding and augmentation: map(..., num_parallel_calls=AUTOTUNE), and "
            "read files in parallel (interleave over TFRecord shards).",
            "Cache what does not change between epochs (dataset.cache()) and move expensive "
            "preprocessing offline.",
            "Store data as TFRecord / ArrayRecord shards in the same region as the TPU.",
        ),
        {"input_wait_ratio": round(ratio, 4), "level": "high" if high else "moderate"},
    )


def hbm_near_limit(m: JobMetrics) -> Card | None:
    if m.hbm_share is not None:
        ratio = m.hbm_share
    elif m.hbm_used and m.hbm_limit:
        ratio = m.hbm_used / m.hbm_limit
    else:
        return None
    if ratio < HBM_NEAR:
        return None
    return _card(
        "hbm_near_limit",
        f"HBM {ratio:.0%} full",
        0.9 if ratio >= 0.97 else 0.75,
        f"peak HBM use {ratio:.1%} of the fullest chip's capacity",
        "The job runs with almost no device memory to spare; a longer sequence, a larger batch "
        "or a new compilation can push it over the limit.",
        (
            "Leave headroom: reduce the per-core batch a step, or shard optimizer state.",
            "Use bfloat16 activations and rematerialise large intermediate tensors.",
        ),
        {"hbm_ratio": round(ratio, 4)},
    )


def batch_padding(m: JobMetrics) -> Card | None:
    batch, cores = m.global_batch_size, m.replicas or 1
    if not batch:
        return None
    per_core = batch / cores
    problems = []
    if per_core != int(per_core) or int(per_core) % 8:
        problems.append(f"{per_core:g} per core is not a multiple of 8")
    if cores >= 8 and batch % 64:
        problems.append(f"global batch {batch} is not a multiple of 64")
    if not problems:
        return None
    better = max(8, round(per_core / 8) * 8) * cores
    return _card(
        "batch_padding",
        f"Batch size {batch} pads on the TPU",
        0.7,
        "; ".join(problems),
        "The TPU pads the batch dimension to a multiple of 8 per core, so the padded rows cost "
        "memory and compute without training anything.",
        (
            f"Use a global batch of {better} ({better // cores} per core) or another multiple of "
            f"{8 * cores}; larger batches (128 per core) use the TPU best.",
            "Retune the learning rate when the batch size changes.",
        ),
        {"per_core_batch": per_core, "suggested_global_batch": better},
    )


def layer_padding(m: JobMetrics) -> Card | None:
    if m.parameters is not None and m.parameters < TINY_PARAMETERS:
        return None
    # The output layer's width is the task's (1 for a regression, the class count): not a choice.
    odd = [w for w in list(m.layer_widths)[:-1] if w % 128]
    if not odd:
        return None
    suggest = {w: -(-w // 128) * 128 for w in odd}
    return _card(
        "layer_padding",
        f"{len(odd)} layer width(s) not a multiple of 128",
        0.6,
        "widths " + ", ".join(str(w) for w in odd[:8]),
        "The matrix unit works on 128 x 128 tiles; a feature dimension that is not a multiple of "
        "128 is padded up and the padding is wasted work.",
        (
            "Round feature sizes up to multiples of 128: "
            + ", ".join(f"{w} -> {s}" for w, s in list(suggest.items())[:6])
            + ".",
            "Prefer fewer wide layers to many narrow ones; dense layers of 512 and more keep the MXU busy.",
        ),
        {"widths": odd, "suggested": suggest},
    )


def slow_first_step(m: JobMetrics) -> Card | None:
    if len(m.step_times) < 3:
        return None
    first, rest = m.step_times[0], statistics.median(m.step_times[1:])
    if first < 5 * rest or first < 10:
        return None
    return _card(
        "slow_first_step",
        f"First step took {first:.0f} s (compilation)",
        0.5,
        f"first step {first:.1f} s vs median {rest:.3f} s",
        "The first step includes tracing and XLA compilation of the training step; it is paid "
        "once per program shape.",
        (
            "Enable the persistent compilation cache (jax.config.update("
            "'jax_compilation_cache_dir', ...)) so restarts skip the compile.",
            "Keep the program small to compile: scan over repeated layers instead of unrolling them.",
        ),
        {"first_step_s": first, "median_step_s": rest},
    )


def recompilation(m: JobMetrics) -> Card | None:
    steps = list(m.step_times[1:])
    if len(steps) < 10:
        return None
    median = statistics.median(steps)
    spikes = [i + 1 for i, s in enumerate(steps) if s >= 3 * median and s - median >= 1.0]
    if len(spikes) < 2:
        return None
    return _card(
        "recompilation",
        f"{len(spikes)} long steps after the first: likely recompilation",
        0.75 if len(spikes) >= 3 else 0.6,
        "long steps at " + ", ".join(str(i) for i in spikes[:10]),
        "Steps that suddenly take many times the median usually mean XLA compiled the program "
        "again for a new input shape or a changed Python value.",
        (
            "Feed fixed shapes: drop_remainder=True, pad sequences to a few bucket lengths.",
            "Log compilations (jax.config.update('jax_log_compiles', True) or "
            "tf.config.run_functions_eagerly(False) with retracing warnings) to see the cause.",
            "Mark Python scalars that change as arguments instead of closing over them.",
        ),
        {"long_steps": spikes[:50], "median_step_s": median},
    )


def few_steps_per_execution(m: JobMetrics) -> Card | None:
    if m.steps_per_execution != 1 or len(m.step_times) < MIN_STEPS + 1:
        return None
    median = m.step_time_p50 if m.step_time_p50 is not None else statistics.median(m.step_times[1:])
    if median >= SHORT_STEP_S:
        return None
    return _card(
        "host_round_trips",
        f"One step per host call with {median * 1000:.0f} ms steps",
        0.65,
        f"steps_per_execution=1, median step {median:.3f} s",
        "Each call from the host to the TPU has a fixed overhead; with short steps that overhead "
        "is a large share of the time.",
        (
            "Run several steps per call: model.compile(steps_per_execution=32) in Keras, "
            "iterations_per_loop in TPUEstimator, or a lax.fori_loop / scan over steps in JAX.",
        ),
        {"median_step_s": median},
    )


def slow_host(m: JobMetrics) -> Card | None:
    hosts = dict(m.host_step_times)
    if len(hosts) < 2:
        return None
    worst = max(hosts, key=hosts.get)
    others = statistics.median(v for h, v in hosts.items() if h != worst)
    if others <= 0 or hosts[worst] < SLOW_HOST * others:
        return None
    return _card(
        "slow_host",
        f"Host {worst} is {hosts[worst] / others:.1f}x slower than the others",
        0.8,
        f"{worst}: median step {hosts[worst]:.3f} s vs {others:.3f} s on the others",
        "Synchronous training waits for the slowest host at every step, so one slow host slows "
        "the whole slice.",
        (
            f"Check {worst}'s input pipeline and CPU load (other processes, data in another "
            "region, a slower disk).",
            "If it persists on the same machine, recreate the TPU or report the host.",
        ),
        {"host": worst, "host_median_s": hosts[worst], "others_median_s": others},
    )
