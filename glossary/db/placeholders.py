"""The one compile-with-placeholder mechanism.

A statement that only its values tell apart (a detail read by slug, a page of a list, the
search's visibility rule) is compiled once from stand-in values, and each stand-in is then found
among the compiled parameters: its position is where the real value goes on every later call.
Every user takes its stand-ins from `stand_in` and finds them with `locate`, so no two pick
values that could collide, and a stand-in the ORM transformed (and so cannot be found) makes
the caller fall back to compiling each time rather than run a wrong statement. An entry's
address is the same trick on a URL (`SLUG`, `glossary.models.entry_path`).
"""

from datetime import UTC, datetime, timedelta

# Stands for a slug while an address is reversed once per route (`glossary.models.entry_path`):
# a valid slug, so the route accepts it, and one no route's fixed part contains.
SLUG = "stand-in-slug"
# Stands for `now` while compiling: never a real clock reading.
CLOCK = datetime(2000, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
_BASE_INT = -7_000_000


def stand_in(kind: type, n: int = 0):
    """The stand-in value of type `kind` for parameter number `n` of a statement: distinct
    for every `n`, never a value a real call passes (negative ids, a control character in a
    text that upper- and lower-casing leave alone, a clock in the year 2000)."""
    if kind is int:
        return _BASE_INT - n
    if kind is str:
        return f"\x1b{n}\x1b"
    if kind is datetime:
        return CLOCK + timedelta(seconds=n + 1)
    raise TypeError(f"no stand-in for {kind!r}")


def stand_ins(**kinds: type) -> dict:
    """`{name: stand_in(kind, n)}` for each name, numbered in order."""
    return {name: stand_in(kind, n) for n, (name, kind) in enumerate(kinds.items())}


def locate(params, markers: dict) -> list[tuple[str | None, object]] | None:
    """Each compiled parameter as `(name, None)` where it is the stand-in `markers[name]`,
    else `(None, value)`, a constant of the statement; None when a stand-in is missing (the
    ORM transformed or dropped it), so the statement cannot be reused."""
    roles = []
    for value in params:
        name = next(
            (n for n, m in markers.items() if isinstance(value, type(m)) and value == m), None
        )
        roles.append((name, None if name else value))
    if {name for name, _value in roles} - {None} != set(markers):
        return None
    return roles
