"""django-eventstream plumbing for live reader pages: storage, channel rules and the stream view.

An open stream must not hold a database connection (or a pool slot) for its whole life: the
library reads its event store from the stream's own thread, and Django only returns that
thread's connection when the request ends, which for a stream is when the reader leaves. The
storage below gives the connection back after every read, and the view closes the one its
own request used (session, user) before the stream starts.

Streams need an ASGI server (`make run` uses uvicorn): under WSGI without a GRIP proxy the
library's async stream blocks a worker forever.
"""

import re

from django.db import connection
from django.views.decorators.http import require_GET
from django_eventstream.channelmanager import ChannelManagerBase
from django_eventstream.storage import DjangoModelStorage
from django_eventstream.views import events

from .events import BULK_CHANNEL, entry_channel

# Channels a browser may open: content channels only (anything else is private plumbing,
# e.g. the MCP endpoint's per-session control channels).
_PUBLIC_CHANNEL = re.compile(r"(?:term|article)-[a-z0-9-]{1,250}|glossary|glossary-bulk")
# Stored (replayable) channels; others are fire-and-forget signals between processes. An MCP
# call's stream that the server closed mid-call (mcp_endpoint/transports/streams.py) is stored
# too, so the client can resume it with Last-Event-ID on any process; it is never public.
_RELIABLE_CHANNEL = re.compile(rf"{_PUBLIC_CHANNEL.pattern}|mcp-call-[0-9a-f]{{64}}-[0-9a-f]{{16}}")


def release_connection() -> None:
    """Return this thread's connection (to the pool, if there is one) unless a transaction
    needs it."""
    if not connection.in_atomic_block:
        connection.close()


class ReleasingDjangoModelStorage(DjangoModelStorage):
    """DjangoModelStorage that does not keep a stream's connection between reads."""

    def get_events(self, channel, last_id, limit=100):
        try:
            return super().get_events(channel, last_id, limit=limit)
        finally:
            release_connection()

    def get_current_id(self, channel):
        try:
            return super().get_current_id(channel)
        finally:
            release_connection()


class GlossaryChannelManager(ChannelManagerBase):
    """Channels come from the view (never from the query string); content is public."""

    def get_channels_for_request(self, request, view_kwargs):
        return set(view_kwargs.get("channels", ()))

    def can_read_channel(self, user, channel):
        return bool(_PUBLIC_CHANNEL.fullmatch(channel))

    def is_channel_reliable(self, channel):
        return bool(_RELIABLE_CHANNEL.fullmatch(channel))


@require_GET
def entry_events(request, kind: str, slug: str):
    """The event stream a term or article page listens to: its own channel, plus bulk
    changes (a large import) that may include it."""
    response = events(request, channels=[entry_channel(kind, slug), BULK_CHANNEL])
    release_connection()
    return response
