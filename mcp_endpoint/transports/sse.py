"""Server-sent events on the MCP endpoint: the one framing and the one streaming response.

Every stream the endpoint sends (a live call's answer, a session's GET stream, a call stream
resumed on GET, `subscriptions/listen`) is framed here. orjson never emits a raw newline, so a
JSON message always fits one `data:` line; keep-alives are SSE comments (`: ping`), which
every client ignores; a priming event carries an id and empty data, so a client can resume
before the first real message (2025-11-25 basic/transports §Resumability).
"""

import orjson
from django.http import StreamingHttpResponse

CONTENT_TYPE = "text/event-stream"
PING = b": ping\n\n"


def accepts(accept: str) -> bool:
    """Whether an Accept header lets the client read an SSE stream."""
    accept = accept.lower()
    return CONTENT_TYPE in accept or "text/*" in accept


def frame(
    message: dict | None,
    *,
    event_id: str | None = None,
    retry: int | None = None,
    event: str | None = None,
) -> bytes:
    """One SSE event: optional id, retry and event type, then the JSON message on one `data:`
    line; `None` makes a priming event with empty data."""
    out = b""
    if event_id is not None:
        out += b"id: " + event_id.encode() + b"\n"
    if retry is not None:
        out += b"retry: %d\n" % retry
    if event is not None:
        out += b"event: " + event.encode() + b"\n"
    return out + b"data: " + (orjson.dumps(message) if message is not None else b"") + b"\n\n"


def retry_field(milliseconds: int) -> bytes:
    """The reconnection delay alone, as the first bytes of a stream."""
    return b"retry: %d\n\n" % milliseconds


def response(content) -> StreamingHttpResponse:
    """A streaming SSE response that no cache and no proxy buffers."""
    streaming = StreamingHttpResponse(content, content_type=CONTENT_TYPE)
    streaming["Cache-Control"] = "no-cache"
    streaming["X-Accel-Buffering"] = "no"
    return streaming
