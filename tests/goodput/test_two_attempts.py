"""A real two-attempt training run through the real agent and sidecar into the real server: every
badput part the server computes matches the ground truth the run recorded, within 2% of the total.

The training script records what it did with its own clock (startup, a slow first step, steady steps
with input waits, a stall, a checkpoint, SIGKILL some steps after it; then a relaunch after a gap
that restores that checkpoint and finishes), and the test derives each part from that record with
the definitions of ``app/goodput/breakdown.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time

from tests.conftest import make_token
from tests.helpers import api, wait_until

STEADY, WAIT, FIRST, STARTUP, SAVE, RESTORE, STALL, GAP = 0.05, 0.02, 1.5, 1.0, 1.0, 0.5, 3.0, 3.0
CKPT, KILL_AT, LAST = 40, 60, 100

SCRIPT = """
import json, os, signal, sys, time
truth = open(os.environ["TRUTH"], "a")
def rec(kind, a, b, **kw):
    truth.write(json.dumps({"kind": kind, "a": a, "b": b, **kw}) + "\\n"); truth.flush()
import tpuwatch
mon = tpuwatch.init()
mode = sys.argv[1]
time.sleep(STARTUP)  # building the model, reading the dataset index
step = 0
if mode == "second":
    t0 = time.time()
    with mon.restoring(path="/ckpt") as r:
        time.sleep(RESTORE)
        r.step = CKPT
    rec("restore", t0, time.time())
    step = CKPT
first = True
while step < LAST:
    step += 1
    t0 = time.time()
    with mon.input_wait():
        time.sleep(WAIT)
    t1 = time.time()
    with mon.step(step):
        time.sleep(FIRST if first else STEADY)
    t2 = time.time()
    rec("step", t1, t2, wait=t1 - t0, step=step, first=first)
    first = False
    if mode == "first" and step == 25:
        t0 = time.time()
        time.sleep(STALL)  # a hang that cleared by itself: no step, no phase
        rec("stall", t0, time.time())
    if mode == "first" and step == CKPT:
        t0 = time.time()
        with mon.saving(step, path="/ckpt"):
            time.sleep(SAVE)
        rec("save", t0, time.time())
    if mode == "first" and step == KILL_AT:
        mon.flush()
        rec("kill", time.time(), time.time())
        os.kill(os.getpid(), signal.SIGKILL)
rec("exit", time.time(), time.time())
mon.close()
"""


def _launch(server, token, tmp_path, mode):
    script = tmp_path / "train.py"
    consts = dict(STEADY=STEADY, WAIT=WAIT, FIRST=FIRST, STARTUP=STARTUP, SAVE=SAVE, RESTORE=RESTORE)
    consts.update(STALL=STALL, CKPT=CKPT, KILL_AT=KILL_AT, LAST=LAST)
    text = textwrap.dedent(SCRIPT)
    for k, v in consts.items():
        text = text.replace(k, repr(v)) if k != "KILL_AT" else text.replace("KILL_AT", str(v))
    script.write_text(text)
    cmd = [sys.executable, "-m", "tpuwatch.cli", "agent", "run", "--server", server, "--token", token]
    cmd += ["--job", "two-attempts", "--group", "llm-run-7", "--node-poll", "0", "--no-tpu-metrics"]
    cmd += ["--", sys.executable, str(script), mode]
    env = {**__import__("os").environ, "TRUTH": str(tmp_path / "truth.jsonl")}
    started = time.time()
    proc = subprocess.run(cmd, capture_output=True, env=env, timeout=120)
    return started, proc


def expected(truth: list[dict], start1: float, start2: float) -> dict:
    """Each part from the run's own record, by the breakdown's definitions."""
    steps = [r for r in truth if r["kind"] == "step"]
    one = [r for r in steps if r["step"] <= KILL_AT and r["a"] < start2]
    two = [r for r in steps if r["a"] >= start2]
    durations = sorted(r["b"] - r["a"] for r in steps if not r["first"])
    steady = durations[len(durations) // 2]
    kill = next(r["a"] for r in truth if r["kind"] == "kill")
    end = next(r["a"] for r in truth if r["kind"] == "exit")
    restore = next(r for r in truth if r["kind"] == "restore")
    save = next(r for r in truth if r["kind"] == "save")
    stall = next(r for r in truth if r["kind"] == "stall")
    first1, first2 = one[0], two[0]
    compile_ = sum(r["b"] - r["a"] - steady for r in (first1, first2))
    lost_steps = [r for r in one if r["step"] > CKPT]
    lost = sum(r["b"] - r["a"] for r in lost_steps) + (kill - one[-1]["b"])
    all_steps = sum(r["b"] - r["a"] for r in steps)
    parts = {
        "startup": (first1["a"] - first1["wait"] - start1)
        + (first2["a"] - first2["wait"] - start2 - (restore["b"] - restore["a"])),
        "compile": compile_,
        "input": sum(r["wait"] for r in steps),
        "checkpoint": (save["b"] - save["a"]) + (restore["b"] - restore["a"]),
        "stall": stall["b"] - stall["a"],
        "lost_work": lost,
        "idle": start2 - kill,
    }
    total = end - start1
    productive = all_steps - compile_ - sum(r["b"] - r["a"] for r in lost_steps)
    parts["other"] = total - productive - sum(parts.values())
    return {"total_s": total, "productive_s": productive, "badput_s": parts}


def test_two_attempt_run_matches_the_ground_truth_within_two_percent(
    live_server, sessions, spool_dir, tmp_path
):
    token = make_token(sessions)
    start1, first = _launch(live_server.url, token, tmp_path, "first")
    assert first.returncode == 128 + 9, first.stderr.decode()[-2000:]
    time.sleep(GAP)  # preempted: the VM comes back, the job is relaunched
    start2, second = _launch(live_server.url, token, tmp_path, "second")
    assert second.returncode == 0, second.stderr.decode()[-2000:]
    truth = [json.loads(line) for line in (tmp_path / "truth.jsonl").read_text().splitlines()]
    want = expected(truth, start1, start2)

    with api(live_server.url, token) as c:
        wait_until(
            lambda: sum(j["steps"] for j in c.get("/api/v1/jobs").json()["jobs"]) == KILL_AT + LAST - CKPT
        )
        wait_until(
            lambda: {j["status"] for j in c.get("/api/v1/jobs").json()["jobs"]} == {"failed", "succeeded"}
        )
        jobs = sorted(c.get("/api/v1/jobs").json()["jobs"], key=lambda j: j["started_at"])
        run = c.get(f"/api/v1/runs/{jobs[1]['id']}/goodput").json()
        one = c.get(f"/api/v1/jobs/{jobs[0]['id']}/goodput").json()

    got = run["badput_s"]
    tolerance = 0.02 * want["total_s"]
    report = {k: (round(want["badput_s"][k], 3), round(got[k], 3)) for k in want["badput_s"]}
    report["productive"] = (round(want["productive_s"], 3), round(run["productive_s"], 3))
    report["total"] = (round(want["total_s"], 3), round(run["total_s"], 3))
    print("expected vs computed (s):", json.dumps(report))
    assert abs(run["total_s"] - want["total_s"]) <= tolerance, report
    assert abs(run["productive_s"] - want["productive_s"]) <= tolerance, report
    for part, value in want["badput_s"].items():
        assert abs(got[part] - value) <= tolerance, (part, report)
    assert abs(run["productive_s"] + sum(got.values()) - run["total_s"]) < 1e-6
    assert [a["job_id"] for a in run["attempts"]] == [j["id"] for j in jobs]
    assert run["attempts"][1]["resumed_from"] == CKPT and run["attempts"][0]["lost_after"] == CKPT
    assert run["lost_steps"] == KILL_AT - CKPT
    # The attempt alone: its own wall time, the same parts, and where it sits in the run.
    assert one["attempt"] == 1 and one["attempts"] == 2 and one["group"] == "llm-run-7"
    assert one["lost_after"] == CKPT and one["outcome"] == "failed"
    assert abs(one["productive_s"] + sum(one["badput_s"].values()) - one["total_s"]) < 1e-6
    assert one["badput_s"]["idle"] == 0
