"""The rules on a synthetic clock: thresholds, allowances, evidence, and which condition wins."""

from __future__ import annotations

from tpuwatch.server.alerts.rules import JobFacts, judge, stall_threshold
from tpuwatch.server.settings import Settings

T0 = 1_700_000_000.0
DEFAULTS = Settings(db="sqlite://", secret_key="k")


def facts(**kw) -> JobFacts:
    base = dict(job_id=1, name="bert", project="p", status="running", started_at=T0, last_seen_at=T0)
    base.update(kw)
    return JobFacts(**base)


def test_threshold_is_the_floor_for_fast_steady_steps():
    assert stall_threshold([0.1] * 100, 10.0) == 10.0


def test_threshold_grows_with_slow_or_noisy_steps():
    assert stall_threshold([30.0] * 20, 120.0) == 300.0
    steady = [2.0] * 7
    noisy = [0.5, 5.0, 0.5, 5.0, 0.5, 5.0, 2.0]  # the same median, a wide spread
    assert stall_threshold(noisy, 5.0) > stall_threshold(steady, 5.0) == 20.0


def test_a_first_step_that_takes_3_minutes_raises_nothing_under_the_default_settings():
    for t in range(0, 181, 5):  # heartbeats every 5 s while XLA compiles; no step yet
        assert judge(facts(last_seen_at=T0 + t), T0 + t, DEFAULTS) is None
    # The first step arrives after 3 minutes, then steps every second.
    first = facts(last_seen_at=T0 + 181, last_step_at=T0 + 180, steps=1, last_step=1)
    assert judge(first, T0 + 181, DEFAULTS) is None


def test_no_first_step_within_the_grace_is_a_stall():
    f = facts(last_seen_at=T0 + 1801)
    verdict = judge(f, T0 + 1801, DEFAULTS)
    assert verdict.condition == "stalled" and "no first step" in verdict.summary


def test_silent_steps_with_live_heartbeats_are_stalled_not_lost():
    s = DEFAULTS.model_copy(update={"stall_floor_seconds": 10.0})
    f = facts(steps=500, last_step=500, last_step_at=T0, last_seen_at=T0 + 44, gaps=[0.1] * 200)
    assert judge(f, T0 + 9, s) is None
    verdict = judge(f, T0 + 11, s)
    assert verdict.condition == "stalled" and "no step for 11 s at step 500" in verdict.summary


def test_silence_of_everything_is_lost():
    f = facts(steps=500, last_step_at=T0, last_seen_at=T0, gaps=[0.1] * 200)
    assert judge(f, T0 + DEFAULTS.lost_after_seconds + 1, DEFAULTS).condition == "lost"


def test_a_reported_checkpoint_phase_gets_its_own_allowance():
    s = DEFAULTS.model_copy(update={"stall_floor_seconds": 10.0, "long_phase_grace_seconds": 600.0})
    f = facts(steps=500, last_step_at=T0, phase="checkpoint", phase_began_at=T0 + 1, gaps=[0.1] * 200)
    f.last_seen_at = T0 + 300
    assert judge(f, T0 + 300, s) is None
    f.last_seen_at = T0 + 700
    verdict = judge(f, T0 + 700, s)
    assert verdict.condition == "stalled" and "phase 'checkpoint'" in verdict.summary
    # The phase ended: the clock restarts from its end.
    f.phase_ended_at = T0 + 650
    assert judge(f, T0 + 655, s) is None


def test_hang_lines_and_an_idle_device_go_into_the_text_and_skip_the_learned_margin():
    s = DEFAULTS.model_copy(update={"stall_floor_seconds": 10.0})
    slow = [30.0] * 50  # learned threshold 300 s
    f = facts(steps=50, last_step_at=T0, last_seen_at=T0 + 20, gaps=slow)
    assert judge(f, T0 + 20, s) is None
    f.hang_lines = ["E1122 TPU Execute is taking a long time (>60s)"]
    f.duty_cycle_max = 0.0
    verdict = judge(f, T0 + 20, s)
    assert verdict.condition == "stalled"
    assert "TPU Execute is taking a long time" in verdict.summary
    assert "duty cycle at most 0%" in verdict.summary


def test_a_failed_job_carries_its_error_title_and_wins_over_everything():
    f = facts(status="failed", exit_code=1, error_title="Out of HBM memory", node_state="PREEMPTED")
    verdict = judge(f, T0 + 10_000, DEFAULTS)
    assert verdict.condition == "failed"
    assert verdict.summary == "exited with code 1: Out of HBM memory"
    killed = judge(facts(status="failed", exit_signal="SIGKILL"), T0, DEFAULTS)
    assert killed.summary == "killed by SIGKILL"


def test_node_state_events_raise_preempted_and_unhealthy():
    pre = judge(facts(node_state="PREEMPTED", node_cause="spot capacity reclaimed"), T0, DEFAULTS)
    assert pre.condition == "preempted" and "spot capacity reclaimed" in pre.summary
    sick = judge(facts(node_state="READY", node_health="UNHEALTHY_MAINTENANCE"), T0, DEFAULTS)
    assert sick.condition == "unhealthy" and "UNHEALTHY_MAINTENANCE" in sick.summary
    assert judge(facts(node_state="READY", node_health="HEALTHY"), T0, DEFAULTS) is None


def test_a_succeeded_job_raises_nothing():
    assert judge(facts(status="succeeded", last_seen_at=T0), T0 + 100_000, DEFAULTS) is None
