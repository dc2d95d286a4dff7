"""The tree stays honest: no import cycle among the server's modules, and no module past 400 lines.

Imports are read from the source (module level and inside functions alike: a deferred import that
closes a loop is still a loop), resolved to modules of the tree, and searched for cycles.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ROOTS = {"tpuwatch.server": REPO / "app", "tpuwatch": REPO / "agent"}
MAX_LINES = 400


def _modules(package: str, root: Path) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join((package, *parts))] = path
    return out


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    tree = ast.parse(path.read_text())
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        for name in names:
            while name and name not in known:  # `from pkg import name`: the module, or its package
                name = name.rpartition(".")[0]
            if name and name != module:
                found.add(name)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules("tpuwatch.server", ROOTS["tpuwatch.server"])
    known = set(modules)
    return {m: _imports(m, p, known) for m, p in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _package_edges_are_parents(a: str, b: str) -> bool:
    """A package importing its own submodule (``models/__init__`` gathering the tables) is not a
    cycle in the sense that matters: the submodule does not need the package's other names."""
    return b.startswith(a + ".") or a.startswith(b + ".")


def test_no_import_cycle_in_the_server():
    graph = {m: {d for d in deps if not _package_edges_are_parents(m, d)} for m, deps in _graph().items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_tables_import_no_domain():
    graph = _graph()
    for module, deps in graph.items():
        if module.startswith("tpuwatch.server.models"):
            assert {d for d in deps if not d.startswith("tpuwatch.server.models")} <= {"tpuwatch.server.db"}


@pytest.mark.parametrize("root", sorted(ROOTS), ids=lambda r: r.replace(".", "-"))
def test_no_module_over_400_lines(root):
    long = {
        str(p.relative_to(REPO)): n
        for p in ROOTS[root].rglob("*.py")
        if (n := len(p.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}


@pytest.mark.parametrize("root", sorted(ROOTS), ids=lambda r: r.replace(".", "-"))
def test_no_control_characters_in_source(root):
    """A backspace where a regex meant ``\\b`` (an edit made without a raw string) reads the same
    on screen and silently never matches: the sharding words matched nothing for a round."""
    bad = {
        f"{p.relative_to(REPO)}:{n}": repr(line)[:80]
        for p in ROOTS[root].rglob("*.py")
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if any(ord(ch) < 32 and ch != "\t" for ch in line)
    }
    assert bad == {}
