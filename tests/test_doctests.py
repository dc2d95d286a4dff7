"""The examples in the code's docstrings run and hold: a newcomer reads them as documentation."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import tpuwatch
import tpuwatch.server


def _modules() -> list[str]:
    names = []
    for package in (tpuwatch, tpuwatch.server):
        names += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    return sorted(set(names))


def test_modules_are_found_in_both_packages():
    names = _modules()
    assert "tpuwatch.sender" in names and "tpuwatch.server.ops.pacing" in names


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_hold(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=False)
    assert result.failed == 0, (
        f"{result.failed} of {result.attempted} examples in {name} fail (python -m doctest -v)"
    )
