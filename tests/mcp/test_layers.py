"""The import graph keeps the layers apart (STYLE "The shape of the house"): the MCP protocol
core imports neither the transports nor the glossary, the transports never import the
glossary's features, the features never import the transports, the glossary app never imports
the MCP endpoint, and nothing in the product imports the test suite. The rules are read from
the source with `ast` (function-level imports included), so a new module is checked the day
it is written; the last test proves the checker itself reports a violation.
"""

from __future__ import annotations

import pytest

from tests.imports import imports_of, module_name
from tests.processes import ROOT

PRODUCT_PACKAGES = ("mcp_endpoint", "glossary", "config", "api", "analytics")


def product_modules() -> dict[str, set[str]]:
    graph = {}
    for top in PRODUCT_PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            name = module_name(path)
            graph[name] = imports_of(
                path.read_text(encoding="utf-8"), name, is_package=path.name == "__init__.py"
            )
    return graph


GRAPH = product_modules()


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


# (layer, prefixes it must never import, why)
RULES = [
    (
        "mcp_endpoint.core",
        ("mcp_endpoint.transports", "mcp_endpoint.features", "mcp_endpoint.models",
         "mcp_endpoint.urls", "mcp_endpoint.management", "glossary",
         "django_eventstream", "analytics", "tests"),
        "the protocol core imports neither the transports nor the glossary",
    ),
    (
        "mcp_endpoint.transports",
        ("mcp_endpoint.features", "mcp_endpoint.urls",
         "mcp_endpoint.management", "glossary", "tests"),
        "transports serve whichever server settings.MCP_SERVER names; they never import it",
    ),
    (
        "mcp_endpoint.features",
        ("mcp_endpoint.transports", "mcp_endpoint.urls",
         "mcp_endpoint.management", "tests"),
        "the glossary's features know the protocol, not how it travels",
    ),
    ("glossary", ("mcp_endpoint", "api", "analytics", "tests"),
     "mcp_endpoint and api import glossary, never the reverse"),
    ("mcp_endpoint", ("analytics",),
     "analytics observes the MCP server (Server.observe); the server never knows it"),
    ("api", ("analytics",), "analytics is a leaf: nothing in the product imports it"),
    ("analytics", ("api", "mcp_endpoint.transports", "mcp_endpoint.features", "tests"),
     "analytics reads the core's protocol names and the glossary's search folding only"),
    ("api", ("mcp_endpoint", "tests"),
     "the REST API and the MCP endpoint are siblings over the same glossary reads and writes"),
    ("config", ("tests",), "the product never imports the test suite"),
]  # fmt: skip


def violations(graph: dict[str, set[str]], layer: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        if within(module, layer)
        for target in targets
        if any(within(target, prefix) for prefix in forbidden)
    )


@pytest.mark.parametrize(
    ("layer", "forbidden", "why"), RULES, ids=[f"{layer}" for layer, _, _ in RULES]
)
def test_no_layer_imports_a_higher_one(layer, forbidden, why):
    """Each layer imports only itself and the layers below it."""
    assert any(within(module, layer) for module in GRAPH), f"no module in {layer}"
    assert not violations(GRAPH, layer, forbidden), why


def reachable(start: str, graph: dict[str, set[str]]) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(target for target in graph.get(module, ()) if target in graph)
    return seen


def test_stdio_loads_none_of_the_http_machinery():
    """The stdio transport reaches only the protocol core: no view, stream, SSE, session or
    event-store module, and so not django-eventstream."""
    loaded = reachable("mcp_endpoint.transports.stdio", GRAPH)
    http = sorted(
        m for m in loaded if within(m, "mcp_endpoint.transports") and not m.endswith(".stdio")
    )
    assert http == []
    assert all(within(m, "mcp_endpoint.core") or m.endswith(".stdio") for m in loaded), loaded
    everything = set().union(*(GRAPH[m] for m in loaded))
    assert not any(within(m, "django_eventstream") for m in everything)


def test_no_test_module_imports_another():
    """Shared test helpers live in conftest.py files and helper modules, never in a test
    module another one imports (STYLE anti-patterns)."""
    tests = ROOT / "tests"
    found = []
    for path in sorted(tests.rglob("test_*.py")):
        name = module_name(path)
        for target in imports_of(path.read_text(encoding="utf-8"), name):
            if target.rpartition(".")[2].startswith("test_") and within(target, "tests"):
                found.append(f"{name} imports {target}")
    assert not found


def test_the_checker_reports_a_violation():
    """The rules above can fail: a core module importing a transport, a relative import
    climbing out of the core and a function-level glossary import are all reported."""
    source = (
        "from ..transports import views\n"
        "from mcp_endpoint.transports.streams import x\n"
        "def f():\n    from glossary import selectors\n"
    )
    graph = {"mcp_endpoint.core.bad": imports_of(source, "mcp_endpoint.core.bad")}
    _, forbidden, _ = RULES[0]
    assert violations(graph, "mcp_endpoint.core", forbidden) == [
        "mcp_endpoint.core.bad imports glossary",
        "mcp_endpoint.core.bad imports glossary.selectors",
        "mcp_endpoint.core.bad imports mcp_endpoint.transports",
        "mcp_endpoint.core.bad imports mcp_endpoint.transports.streams",
        "mcp_endpoint.core.bad imports mcp_endpoint.transports.streams.x",
        "mcp_endpoint.core.bad imports mcp_endpoint.transports.views",
    ]
