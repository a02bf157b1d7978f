"""Legacy Streamable HTTP sessions (2025-11-25 basic/transports §Session Management).

`initialize` mints a session: 32 random bytes as URL-safe Base64 (visible ASCII 0x21–0x7E
only, as the spec requires), stored as its SHA-256 with the negotiated version, client info
and capabilities. Later requests name it in `Mcp-Session-Id`; an unknown, ended or expired
session is a 404, which tells the client to initialize again. Sessions expire after
`MCP_SESSION_IDLE_SECONDS` without a request (an open GET stream counts as activity);
`manage.py mcp_cleanup_sessions` deletes expired rows.

`SessionState` is what the method handlers see as `ctx.session`: `negotiated()` from
`initialize`, `log_level` from `logging/setLevel`, `subscribe()`/`unsubscribe()` from
`resources/subscribe`. Changes are written at once; a subscription change is also announced
(after commit) to the process holding the session's GET stream, wherever it runs.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass, field
from datetime import timedelta

import orjson
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ..core.errors import InvalidRequest
from ..models import McpSession
from . import eventstore
from .responses import error_response

logger = logging.getLogger("mcp_endpoint")

HEADER = "Mcp-Session-Id"
# Writing last_seen on every request would turn each read into a write; once a minute is
# precise enough for an expiry measured in tens of minutes.
TOUCH_EVERY = timedelta(seconds=60)
MAX_SUBSCRIPTIONS = 1000


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("ascii", "replace")).hexdigest()


def control_channel(key_hash: str) -> str:
    """The fan-out channel that tells a session's GET stream about subscription changes and
    the session's end (not stored: it only matters to a stream that is open)."""
    return f"mcp-session-{key_hash[:32]}"


def idle_limit() -> timedelta:
    return timedelta(seconds=settings.MCP_SESSION_IDLE_SECONDS)


def expired_before():
    return timezone.now() - idle_limit()


def valid_key(key: str) -> bool:
    return 0 < len(key) <= 200 and all(0x21 <= ord(c) <= 0x7E for c in key)


def load(key: str) -> McpSession | None:
    """The live session named by `key`, or None (unknown, ended or expired)."""
    if not valid_key(key):
        return None
    row = McpSession.objects.filter(key_hash=hash_key(key)).first()
    if row is None:
        return None
    now = timezone.now()
    if row.last_seen < now - idle_limit():
        row.delete()
        return None
    if row.last_seen < now - TOUCH_EVERY:
        McpSession.objects.filter(pk=row.pk).update(last_seen=now)
        row.last_seen = now
    return row


def end(key: str) -> bool:
    """End the session (DELETE); True if there was one. Its GET stream, if any, closes."""
    if not valid_key(key):
        return False
    key_hash = hash_key(key)
    deleted, _ = McpSession.objects.filter(key_hash=key_hash).delete()
    if deleted:
        _announce(key_hash, {"ended": True})
    return bool(deleted)


def cleanup() -> int:
    """Delete sessions idle past the limit; returns how many."""
    deleted, _ = McpSession.objects.filter(last_seen__lt=expired_before()).delete()
    return deleted


def _announce(key_hash: str, data: dict) -> None:
    def send():
        try:
            eventstore.send(control_channel(key_hash), "session", data)
        except Exception:  # the change is saved; a stream learns of it at its next start
            logger.exception("Could not announce a session change")

    transaction.on_commit(send)


@dataclass
class SessionState:
    """`ctx.session` for an HTTP request: an existing row, or (for `initialize`) a session
    about to be minted."""

    row: McpSession | None = None
    key: str | None = None  # set when this request minted the session
    changed: set[str] = field(default_factory=set)

    # --- read by the transport ----------------------------------------------------------------
    @property
    def log_level(self) -> str | None:
        return (self.row.log_level or None) if self.row else None

    @log_level.setter
    def log_level(self, level: str) -> None:
        if self.row is not None:
            self.row.log_level = level
            McpSession.objects.filter(pk=self.row.pk).update(log_level=level)

    @property
    def subscriptions(self) -> list[str]:
        return list(self.row.subscriptions) if self.row else []

    # --- called by method handlers ------------------------------------------------------------
    def negotiated(self, version: str, client_info: dict, capabilities: dict) -> None:
        """`initialize`: mint the session (a client re-initializing gets a new one)."""
        self.key = secrets.token_urlsafe(32)
        self.row = McpSession.objects.create(
            key_hash=hash_key(self.key),
            protocol_version=version,
            client_info=client_info,
            client_capabilities=capabilities,
            last_seen=timezone.now(),
        )

    def subscribe(self, uri: str) -> bool:
        """Add a subscription; False when the session is full. Without a session (stateless
        request) there is no stream to deliver on: accepted, nothing stored."""
        if self.row is None:
            return True
        with transaction.atomic():
            row = McpSession.objects.select_for_update().get(pk=self.row.pk)
            if uri not in row.subscriptions:
                if len(row.subscriptions) >= MAX_SUBSCRIPTIONS:
                    return False
                row.subscriptions.append(uri)
                row.save(update_fields=["subscriptions"])
                _announce(row.pk, {"subscriptions": row.subscriptions})
        self.row = row
        return True

    def unsubscribe(self, uri: str) -> None:
        if self.row is None:
            return
        with transaction.atomic():
            row = McpSession.objects.select_for_update().get(pk=self.row.pk)
            if uri in row.subscriptions:
                row.subscriptions.remove(uri)
                row.save(update_fields=["subscriptions"])
                _announce(row.pk, {"subscriptions": row.subscriptions})
        self.row = row


def attach(request, ctx, body: bytes):
    """Give a legacy POST its `ctx.session`, or answer it now: 404 for an unknown, ended or
    expired session (the client then initializes again), 400 for a missing header when
    `MCP_REQUIRE_SESSION` is on (initialize excepted). Without the header the request is
    served statelessly; if it is `initialize`, it mints a session."""
    key = request.META.get("HTTP_MCP_SESSION_ID")  # HEADER, without building .headers
    if key is not None:
        row = load(key)
        if row is None:
            return error_response(
                InvalidRequest(
                    "Session not found: it ended or expired. Initialize again without "
                    "an Mcp-Session-Id header."
                ),
                404,
            )
        ctx.session = SessionState(row)
        return None
    if settings.MCP_REQUIRE_SESSION and not _is_initialize(body):
        return error_response(
            InvalidRequest(
                "Not an MCP request in a session: send the Mcp-Session-Id header that "
                "initialize returned (this server requires sessions)"
            ),
            400,
        )
    ctx.session = SessionState()
    return None


def _is_initialize(body: bytes) -> bool:
    try:
        message = orjson.loads(body)
    except orjson.JSONDecodeError:
        return True  # let the dispatcher answer the parse error
    return isinstance(message, dict) and message.get("method") == "initialize"
