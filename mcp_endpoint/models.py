"""Legacy-era (2025-03-26 … 2025-11-25) MCP sessions, kept in the database so any worker on
any host serves any session.

The modern revision (2026-07-28) has no sessions: every request carries its own metadata.
A legacy client that opens with `initialize` gets a random `Mcp-Session-Id`; only its SHA-256
is stored, so the table (a backup, a log of queries) never holds a usable session id.
"""

from django.db import models


class McpSession(models.Model):
    key_hash = models.CharField(primary_key=True, max_length=64, editable=False)
    protocol_version = models.CharField(max_length=20)
    client_info = models.JSONField(default=dict, blank=True)
    client_capabilities = models.JSONField(default=dict, blank=True)
    # `logging/setLevel`; empty until the client asks for log messages.
    log_level = models.CharField(max_length=10, blank=True, default="")
    # Resource URIs from `resources/subscribe`, in subscription order.
    subscriptions = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen = models.DateTimeField(db_index=True)
    # The one open GET stream: a random holder id and when its lease ends, so a second stream
    # is refused (409) while a holder that died with its process stops counting.
    stream_holder = models.CharField(max_length=32, blank=True, default="")
    stream_lease_until = models.DateTimeField(null=True, blank=True)
    # Which process holds the stream (transports/liveness.py): a reconnect after that process
    # crashed takes the claim over at once instead of waiting for the lease to run out.
    stream_owner = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        verbose_name = "sesja MCP"
        verbose_name_plural = "sesje MCP"

    def __str__(self) -> str:
        return f"{self.key_hash[:12]}… ({self.protocol_version})"
