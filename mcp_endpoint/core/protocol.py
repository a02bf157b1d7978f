"""Protocol constants: revisions, eras, `_meta` keys and method names, the only spelling of
each used anywhere in the package.

The server is "dual-era" (2026-07-28 basic/versioning): the legacy revisions negotiate once
with `initialize`; the modern revision carries its version and client capabilities in every
request's `_meta`. What a particular server says about itself (name, instructions,
capabilities) belongs to its `Server` object (core/server.py), not here.
"""

LEGACY = "legacy"
MODERN = "modern"

LATEST_LEGACY_VERSION = "2025-11-25"
LEGACY_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
# A request without MCP-Protocol-Version is a 2025-03-26 client (2025-06-18
# basic/transports §Protocol Version Header: "SHOULD assume protocol version 2025-03-26").
DEFAULT_HTTP_VERSION = "2025-03-26"
# The one revision that requires receiving JSON-RPC batches (2025-03-26 basic/index).
BATCH_VERSION = "2025-03-26"
MODERN_VERSIONS = ("2026-07-28",)
SUPPORTED_VERSIONS = (*MODERN_VERSIONS, *LEGACY_VERSIONS)

META = "_meta"
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
META_PROGRESS_TOKEN = "progressToken"  # noqa: S105 (a _meta key, not a secret)

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

# Requests.
INITIALIZE = "initialize"
PING = "ping"
DISCOVER = "server/discover"
TOOLS_LIST = "tools/list"
TOOLS_CALL = "tools/call"
RESOURCES_LIST = "resources/list"
RESOURCES_TEMPLATES_LIST = "resources/templates/list"
RESOURCES_READ = "resources/read"
RESOURCES_SUBSCRIBE = "resources/subscribe"
RESOURCES_UNSUBSCRIBE = "resources/unsubscribe"
PROMPTS_LIST = "prompts/list"
PROMPTS_GET = "prompts/get"
COMPLETE = "completion/complete"
LOGGING_SET_LEVEL = "logging/setLevel"
SUBSCRIPTIONS_LISTEN = "subscriptions/listen"

# Notifications, both directions.
INITIALIZED = "notifications/initialized"
CANCELLED = "notifications/cancelled"
MESSAGE = "notifications/message"
PROGRESS = "notifications/progress"
RESOURCE_UPDATED = "notifications/resources/updated"
RESOURCE_LIST_CHANGED = "notifications/resources/list_changed"
SUBSCRIPTIONS_ACKNOWLEDGED = "notifications/subscriptions/acknowledged"

# Requests a server sends a client (legacy era) or asks for in an input_required result.
ELICIT = "elicitation/create"
SAMPLE = "sampling/createMessage"
LIST_ROOTS = "roots/list"

# Methods whose modern HTTP requests must mirror `params.name`/`params.uri` in Mcp-Name.
NAME_BEARING = {TOOLS_CALL: "name", PROMPTS_GET: "name", RESOURCES_READ: "uri"}


def notification(method: str, params: dict | None = None) -> dict:
    """A JSON-RPC notification message (no `params` when there are none)."""
    message = {"jsonrpc": "2.0", "method": method}
    if params:
        message["params"] = params
    return message
