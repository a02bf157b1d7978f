"""Dropping persistent database connections the server has already closed, before a request
uses them, without a round trip.

Why: the production WSGI command keeps connections open (`CONN_MAX_AGE=600`). When PostgreSQL
restarts, every one of them is dead, and Django only finds out when the next request's first
query fails: one lost request per worker thread. Django's `CONN_HEALTH_CHECKS` prevents that
with a `SELECT 1` round trip at the start of every request, which costs a large share of a
cached `get_term` (`bench/mcp.py --health-checks`). A terminated backend
does not go quietly, though: PostgreSQL sends a FATAL message and closes the socket, so the
idle connection's socket becomes readable. An idle connection with bytes (or EOF) waiting is
dead or about to be, and a zero-timeout `select()` on its descriptor costs one system call,
no round trip.
`request_started` (config/wsgi.py connects it, after Django's own `close_old_connections`)
closes such a connection; Django opens a fresh one on the first query. What this cannot see
(a silent network partition) fails that request as before: a 503 with Retry-After.
"""

import select

from django.db import connections


def drop_closed_connections(**kwargs) -> None:
    """Close every idle persistent PostgreSQL connection whose socket has something to read."""
    for conn in connections.all(initialized_only=True):
        raw = conn.connection
        if (
            raw is None
            or conn.vendor != "postgresql"
            or conn.in_atomic_block
            or conn.settings_dict["OPTIONS"].get("pool")  # the pool checks them itself
        ):
            continue
        try:
            readable, _, _ = select.select([raw.fileno()], [], [], 0)
        except (OSError, ValueError):  # descriptor already gone
            readable = True
        if readable:
            conn.close()
