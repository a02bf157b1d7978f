"""No import circles among the glossary's modules, nor among the benchmark scripts (STYLE,
"Circles kept alive by imports inside functions"). The graph is read from the source with
`ast`, imports inside functions included, so a function-level import cannot hide a circle;
importing `a.b.c` counts as importing its packages `a.b` and `a` too (Python runs their
`__init__` first), except for a module inside that package. The last test proves the checker
reports a circle.
"""

from __future__ import annotations

import pytest

from tests.imports import imports_of, module_name
from tests.processes import ROOT


def _graph(top: str) -> dict[str, set[str]]:
    """Module -> the modules of `top` it imports (and the packages those run first)."""
    sources = {}
    for path in sorted((ROOT / top).rglob("*.py")):
        if "migrations" not in path.parts:
            sources[module_name(path)] = (path.read_text(encoding="utf-8"), path.stem)
    graph = {}
    for name, (source, stem) in sources.items():
        edges = set()
        for target in imports_of(source, name, is_package=stem == "__init__"):
            while target and target not in sources:  # `from pkg import function`
                target = target.rpartition(".")[0]
            while target:
                if target != name and not name.startswith(target + "."):
                    edges.add(target)
                target = target.rpartition(".")[0]
        graph[name] = edges & set(sources)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@pytest.mark.parametrize("top", ["glossary", "bench"])
def test_no_import_circles(top):
    """No two modules of the glossary app (or of bench/) import each other, directly or
    through others, at module level or inside a function."""
    assert _circles(_graph(top)) == []


def test_the_checker_finds_a_circle_kept_alive_inside_a_function():
    """A circle closed by an import inside a function is still a circle."""
    inner = "def f():\n    from .a import x\n"
    graph = {
        "p.a": {"p.b"},
        "p.b": {t for t in imports_of(inner, "p.b", is_package=False) if t != "p.a.x"},
    }
    assert _circles(graph) == [["p.a", "p.b"]]
