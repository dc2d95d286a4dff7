"""The compilations a job reported, as the server reads them: many hosts, TensorFlow's warnings,
and thousands of small compilations that must not crowd the job's other events off its page."""

from __future__ import annotations

import time

from tests.conftest import make_token
from tests.helpers import api
from tests.jobs.seed import post


def _compile(ts: float, function: str, duration: float | None, step: int, **extra) -> list:
    data = {"function": function, "framework": "jax", "step": step, **extra}
    if duration is not None:
        data["duration"] = duration
    return [ts, "compile", f"compiled {function}", data]


def test_a_slice_counts_each_function_once_on_the_host_that_compiled_it_most(live_server, sessions):
    token = make_token(sessions)
    t0 = time.time() - 600
    with api(live_server.url, token) as c:
        for host in range(4):  # every host compiles the step twice; host 2 also an eval step four times
            events = [_compile(t0 + i, "train_step", 1.0 + host, i + 1) for i in range(2)]
            if host == 2:
                events += [
                    _compile(t0 + 10 + i, "eval_step", 0.5, 10 * (i + 1), cache="hit") for i in range(4)
                ]
            job_id = post(c, "slice-1", "slice", host, 0, events=events)["job_id"]
        got = c.get(f"/api/v1/jobs/{job_id}/compiles").json()
    by = {f["function"]: f for f in got["functions"]}
    assert [f["function"] for f in got["functions"]] == ["eval_step", "train_step"]
    assert (by["eval_step"]["count"], by["eval_step"]["host_index"], by["eval_step"]["cache_hits"]) == (
        4,
        2,
        4,
    )
    assert (by["train_step"]["count"], by["train_step"]["recompiles"]) == (2, 1)
    assert got["compilations"] == 6 and got["recompiling"] == ["eval_step"]
    assert got["total_s"] == 2 * 3.0 + 4 * 0.5  # host 2 compiled longest


def test_tensorflow_warnings_count_the_largest_number_of_traces_they_reported(live_server, sessions):
    token = make_token(sessions)
    t0 = time.time() - 60
    warn = [
        [t0 + i, "compile", "retraced", {"function": "train_step", "framework": "tensorflow", "retraces": n}]
        for i, n in enumerate((5, 6, 6))
    ]
    with api(live_server.url, token) as c:
        job_id = post(c, "tf-1", "tf", 0, 0, events=warn)["job_id"]
        got = c.get(f"/api/v1/jobs/{job_id}/compiles").json()
    assert [(f["count"], f["total_s"]) for f in got["functions"]] == [(6, None)]


def test_thousands_of_compilations_leave_the_error_card_on_the_page(live_server, sessions):
    token = make_token(sessions)
    t0 = time.time() - 600
    with api(live_server.url, token) as c:
        for batch in range(3):
            events = [_compile(t0 + batch + i * 1e-4, f"op_{i}", 0.001, 1) for i in range(1000)]
            post(c, "many-1", "many", 0, batch, events=events)
        error = 'Traceback (most recent call last):\n  File "t.py", line 1\nValueError: boom at the end'
        job_id = post(
            c, "many-1", "many", 0, 3, events=[[t0 + 100, "error", error, {"source": "traceback"}]]
        )["job_id"]
        page = c.get(f"/jobs/{job_id}", params={"format": "json"}).json()
    assert page["compiles"]["compilations"] == 3000
    assert any("boom at the end" in (card.get("evidence") or "") for card in page["error_cards"])
