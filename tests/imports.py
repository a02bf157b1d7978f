"""Reading a module's imports from its source with `ast` (imports inside functions included),
for the tests of the import graph (tests/mcp/test_layers.py,
tests/glossary/test_import_circles.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.processes import ROOT


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(source: str, module: str, *, is_package: bool = False) -> set[str]:
    """Every module `module`'s source imports, relative imports resolved, at any depth."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module
            found.add(target)
            # `from . import streams` names a module too.
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found
