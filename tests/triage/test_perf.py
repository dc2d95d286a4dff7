"""Performance cards from plain metrics."""

from __future__ import annotations

from tpuwatch.server.triage.perf import JobMetrics, perf_cards


def _subtypes(cards):
    return [c.subtype for c in cards]


def test_input_wait_thresholds_moderate_and_high():
    steps = [20.0] + [1.0] * 20
    moderate = perf_cards(JobMetrics(step_times=steps, input_waits=[0.0] + [0.08] * 20))
    high = perf_cards(JobMetrics(step_times=steps, input_waits=[0.0] + [0.3] * 20))
    fine = perf_cards(JobMetrics(step_times=steps, input_waits=[0.0] + [0.02] * 20))
    card = next(c for c in moderate if c.subtype == "input_bound")
    # The wait comes on top of the step: 0.08 s of every 1.08 s.
    assert card.facts == {"input_wait_ratio": round(0.08 / 1.08, 4), "level": "moderate"}
    assert card.category == "performance" and card.line is None
    assert next(c for c in high if c.subtype == "input_bound").facts["level"] == "high"
    assert "input_bound" not in _subtypes(fine)


def test_hbm_near_limit_from_ninety_percent():
    assert "hbm_near_limit" in _subtypes(perf_cards({"hbm_used": 15.0, "hbm_limit": 16.0}))
    assert perf_cards({"hbm_used": 12.0, "hbm_limit": 16.0}) == []


def test_batch_that_pads_and_the_suggestion():
    card = perf_cards({"global_batch_size": 100, "replicas": 8})[0]
    assert card.subtype == "batch_padding"
    assert card.facts["per_core_batch"] == 12.5
    assert card.facts["suggested_global_batch"] % 64 == 0
    assert perf_cards({"global_batch_size": 1024, "replicas": 8}) == []


def test_layer_widths_not_multiple_of_128():
    card = perf_cards({"layer_widths": [768, 300, 1024, 50, 10]})[0]
    assert card.subtype == "layer_padding"
    assert card.facts["widths"] == [300, 50]  # not the output layer's 10
    assert card.facts["suggested"] == {300: 384, 50: 128}


def test_long_first_step_and_repeated_long_steps():
    steps = [90.0] + [0.5] * 40
    steps[10] = steps[25] = steps[33] = 12.0
    cards = perf_cards({"step_times": steps})
    assert set(_subtypes(cards)) == {"slow_first_step", "recompilation"}
    recompile = next(c for c in cards if c.subtype == "recompilation")
    assert recompile.facts["long_steps"] == [10, 25, 33]


def test_one_step_per_execution_with_short_steps():
    card = perf_cards({"step_times": [5.0] + [0.03] * 10, "steps_per_execution": 1})[0]
    assert card.subtype == "host_round_trips"
    assert perf_cards({"step_times": [5.0] + [0.03] * 10, "steps_per_execution": 64}) == []


def test_one_host_slower_than_the_rest():
    hosts = {"w-0": 1.0, "w-1": 1.02, "w-2": 0.99, "w-3": 1.6}
    card = perf_cards({"host_step_times": hosts})[0]
    assert card.subtype == "slow_host"
    assert card.facts["host"] == "w-3"
    assert perf_cards({"host_step_times": {"w-0": 1.0, "w-1": 1.05}}) == []


def test_cards_are_ordered_by_confidence():
    cards = perf_cards(
        {
            "step_times": [30.0] + [1.0] * 20,
            "input_waits": [0.0] + [0.5] * 20,
            "layer_widths": [100, 1],
        }
    )
    assert _subtypes(cards) == ["input_bound", "layer_padding", "slow_first_step"]
    assert [c.confidence for c in cards] == sorted((c.confidence for c in cards), reverse=True)
