"""The stdio transport: one JSON-RPC message per line in, one per line out, through the same
dispatcher as HTTP (every revision's basic/transports §stdio).

`serve()` takes the two byte streams, so tests inject them and the management command hands
it the process's real stdin/stdout. Only protocol messages are written to the output stream;
a line that is not JSON gets a -32700 answer and the loop carries on; end of input ends it.
Legacy state (the version negotiated by `initialize`, the log level) lives in a
`StdioSession` for the life of the process; modern requests carry theirs in `_meta`.
"""

import logging
from dataclasses import dataclass
from typing import BinaryIO

import orjson
from django.db import connections

from .context import RequestContext
from .dispatcher import handle_payload
from .errors import wire_error

logger = logging.getLogger("mcp_endpoint")


@dataclass
class StdioSession:
    protocol_version: str | None = None
    client_info: dict | None = None
    client_capabilities: dict | None = None
    log_level: str | None = None

    def negotiated(self, version: str, client_info: dict, capabilities: dict) -> None:
        self.protocol_version = version
        self.client_info = client_info
        self.client_capabilities = capabilities


def handle_line(line: bytes, session: StdioSession) -> bytes | None:
    """The output line (without newline) for one input line, or None if nothing is owed."""
    ctx = RequestContext(
        transport="stdio",
        era=None,  # decided per message by its `_meta`
        protocol_version=session.protocol_version,
        client_info=session.client_info,
        client_capabilities=session.client_capabilities,
        log_level=session.log_level,
        session=session,
    )
    try:
        reply = handle_payload(line, ctx)
        return None if reply.body is None else reply.encode()
    except Exception as exc:
        return orjson.dumps(wire_error(exc)[0])


def serve(instream: BinaryIO, outstream: BinaryIO) -> None:
    """Answer messages from `instream` on `outstream` until end of input."""
    session = StdioSession()
    for raw in instream:
        line = raw.strip()
        if not line:
            continue
        _recycle_connections()
        out = handle_line(line, session)
        if out is not None:
            outstream.write(out + b"\n")
            outstream.flush()


def _recycle_connections() -> None:
    """What a request boundary does for HTTP: drop broken connections and those older than
    CONN_MAX_AGE, so a long-lived process never reuses a dead one (never inside an atomic
    block, where closing would abort the caller's transaction)."""
    for conn in connections.all(initialized_only=True):
        if not conn.in_atomic_block:
            conn.close_if_unusable_or_obsolete()
