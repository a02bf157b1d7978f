"""The statements our selectors run, captured in-process as templates (SQL and the role of each
parameter: the clock, a slug or an id, or a constant) that the reference server
(bench/reference_server.py) and the floor server (bench/floor.py) replay with their own values.
"""

from __future__ import annotations

import datetime as dt


def capture_statements(fn) -> list[tuple[str, tuple]]:
    from django.db import connection

    captured: list[tuple[str, tuple]] = []

    def wrapper(execute, sql, params, many, context):
        captured.append((sql, tuple(params or ())))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(wrapper):
        fn()
    return captured


def _json_param(value):
    if isinstance(value, dt.datetime):
        return ["now", None]
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return ["const", value]
    if isinstance(value, int):
        return ["const", int(value)]
    if isinstance(value, str):
        return ["const", str(value)]
    if isinstance(value, (list, tuple)):
        return ["const", [str(v) for v in value]]
    raise TypeError(f"cannot pass {value!r} to the reference server")


def _template(params: tuple, **roles) -> list:
    """Parameters as [role, value]: the clock, a named role (slug, id) or a constant."""
    out = []
    for value in params:
        role = next((r for r, v in roles.items() if type(value) is type(v) and value == v), None)
        out.append([role, None] if role else _json_param(value))
    return out


def detail_template(tool: str, row: str, items, two_statements) -> tuple[dict | None, list]:
    """The reference's template of a detail read: `two_statements(slug, pk)` runs the row
    statement, then the links statement; every `(slug, pk)` of `items` must give the same
    SQL with its slug and id in the same places. Returns (template, problems)."""
    problems, template = [], None
    for slug, pk in items:
        statements = capture_statements(lambda s=slug, p=pk: two_statements(s, p))
        if len(statements) != 2:
            problems.append(f"{tool} {slug!r}: {len(statements)} statements, expected 2")
            continue
        (row_sql, row_params), (links_sql, links_params) = statements
        current = {
            row: {"sql": row_sql, "params": _template(row_params, slug=slug)},
            "links": {"sql": links_sql, "params": _template(links_params, id=pk)},
        }
        template = template or current
        if current != template:
            problems.append(f"{tool} {slug!r}: SQL differs from the first slug's template")
    return template, problems
