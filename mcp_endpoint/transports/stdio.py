"""The stdio transport: one JSON-RPC message per line in, one per line out, through the same
dispatcher as HTTP (every revision's basic/transports §stdio).

`serve()` takes the two byte streams (and optionally the server; by default the one
`settings.MCP_SERVER` names), so tests inject them and the management command hands it the
process's real stdin/stdout. It imports the protocol core only, none of the HTTP machinery.
Only protocol messages are written to the output stream; a line that is not JSON gets a -32700
answer and the loop carries on; end of input ends it.
Legacy state (the version negotiated by `initialize`, the log level) lives in a
`StdioSession` for the life of the process; modern requests carry theirs in `_meta`.
"""

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import orjson
from django.db import connections

from ..core.context import RequestContext
from ..core.dispatcher import Dispatcher
from ..core.errors import ClientError, wire_error
from ..core.server import Server, get_server

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


class Channel:
    """The pipe back to the client while a message is being handled: notifications (logs,
    progress) are written at once, and a legacy request to the client (elicitation, sampling,
    roots) is written and answered from the next input lines; anything else the client sends
    meanwhile is handled in turn (2025-11-25 basic/transports §stdio: messages flow both ways)."""

    def __init__(
        self,
        lines: Iterator[bytes],
        outstream: BinaryIO,
        session: StdioSession,
        dispatcher: Dispatcher,
    ):
        self.lines, self.outstream, self.session = lines, outstream, session
        self.dispatcher = dispatcher
        self.sent = 0

    def write(self, message) -> None:
        self.outstream.write(orjson.dumps(message) + b"\n")
        self.outstream.flush()

    def send_request(self, method: str, params: dict) -> dict:
        self.sent += 1
        request_id = f"srv-{self.sent}"
        self.write({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        for raw in self.lines:
            line = raw.strip()
            if not line:
                continue
            try:
                message = orjson.loads(line)
            except orjson.JSONDecodeError:
                message = None
            if (
                isinstance(message, dict)
                and message.get("id") == request_id
                and "method" not in message
            ):
                if "error" in message:
                    error = message["error"] if isinstance(message["error"], dict) else {}
                    reason = error.get("message", "no reason given")
                    raise ClientError(f"The client refused {method}: {reason}")
                return message.get("result")
            out = handle_line(self.dispatcher, line, self.session, self)
            if out is not None:
                self.outstream.write(out + b"\n")
                self.outstream.flush()
        raise ClientError(f"The input ended before the client answered {method}")


def handle_line(
    dispatcher: Dispatcher, line: bytes, session: StdioSession, channel: Channel | None = None
) -> bytes | None:
    """The output line (without newline) for one input line, or None if nothing is owed."""
    ctx = RequestContext(
        transport="stdio",
        era=None,  # decided per message by its `_meta`
        protocol_version=session.protocol_version,
        client_info=session.client_info,
        client_capabilities=session.client_capabilities,
        log_level=session.log_level,
        session=session,
        notify=channel.write if channel else None,
        send_request=channel.send_request if channel else None,
    )
    try:
        reply = dispatcher.handle_payload(line, ctx)
        return None if reply.body is None else reply.encode()
    except Exception as exc:
        return orjson.dumps(wire_error(exc)[0])


def serve(instream: BinaryIO, outstream: BinaryIO, server: Server | None = None) -> None:
    """Answer messages from `instream` on `outstream` until end of input."""
    dispatcher = Dispatcher(server or get_server())
    session = StdioSession()
    lines = iter(instream)
    channel = Channel(lines, outstream, session, dispatcher)
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        _recycle_connections()
        out = handle_line(dispatcher, line, session, channel)
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
