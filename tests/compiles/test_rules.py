"""What counts as recompiling, on the rows the server stores (pure functions: no server needed)."""

from __future__ import annotations

from tpuwatch.server.compiles.rules import ACTIVE_S, recompiling, summarize


def _rows(name: str, n: int, t0: float = 0.0) -> list:
    return [(0, t0 + i, {"function": name, "duration": 0.1, "step": i + 1}) for i in range(n)]


def test_three_recompilations_after_the_first_make_a_function_recompiling_two_do_not():
    assert recompiling(summarize(_rows("a", 4) + _rows("b", 3))) == ["a"]


def test_unnamed_compilations_are_never_one_function_recompiling():
    assert recompiling(summarize(_rows("?", 50))) == []


def test_a_function_that_stopped_recompiling_long_ago_is_not_recompiling_now():
    functions = summarize(_rows("a", 6, t0=1000.0))
    assert recompiling(functions, since=1005.0) == ["a"]
    assert recompiling(functions, since=1005.0 + ACTIVE_S) == []


def test_rows_of_the_wrong_shape_are_skipped_not_fatal():
    rows = [(0, 1.0, None), (0, 2.0, {"function": "f", "duration": "slow", "step": "x"}), (0, 3.0, {})]
    by = {f.function: f for f in summarize(rows)}
    assert sorted(by) == ["?", "f"]
    assert (by["f"].count, by["f"].total_s, by["f"].first_step) == (1, None, None)
