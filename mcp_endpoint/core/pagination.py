"""Opaque pagination cursors (every revision's server/utilities/pagination).

A cursor is a small JSON position (a list offset, or a keyset position such as
`(sort_key, id)`) tagged with the list it belongs to and signed with SECRET_KEY, so a client
can only hand back cursors we issued, for the same list. Anything else is -32602.
"""

import orjson
from django.core import signing

from .errors import InvalidParams

_signer = signing.Signer(salt="mcp_endpoint.cursor")


def make_cursor(kind: str, position) -> str:
    return _signer.sign(signing.b64_encode(orjson.dumps([kind, position])).decode())


def read_cursor(cursor, kind: str):
    """The position stored in `cursor` for list `kind`; None for no cursor (first page)."""
    if cursor is None or cursor == "":
        return None
    try:
        kind_in, position = orjson.loads(signing.b64_decode(_signer.unsign(cursor).encode()))
    except (signing.BadSignature, ValueError, TypeError, orjson.JSONDecodeError) as exc:
        raise InvalidParams(
            "Invalid cursor: pass back a nextCursor value exactly as this server returned it, "
            "or omit cursor to start from the first page"
        ) from exc
    if kind_in != kind:
        raise InvalidParams(f"Invalid cursor: it belongs to another list, not {kind}")
    return position


def offset_page(items: list, cursor, kind: str, page_size: int) -> tuple[list, str | None]:
    """One page of a small in-memory list (tools, prompts, templates)."""
    start = read_cursor(cursor, kind) or 0
    if not isinstance(start, int) or start < 0 or start > len(items):
        raise InvalidParams("Invalid cursor: position out of range")
    end = start + page_size
    return items[start:end], make_cursor(kind, end) if end < len(items) else None
