"""Protocol constants: revisions, `_meta` keys, method names, and what this server says about
itself (server info, capabilities, instructions).

The server is "dual-era" (2026-07-28 basic/versioning): the legacy revisions negotiate once
with `initialize`; the modern revision carries its version and client capabilities in every
request's `_meta`. Capabilities declare exactly what is implemented: over HTTP, resource
subscriptions and resource list changes (legacy GET stream, modern `subscriptions/listen`);
over stdio, neither.
"""

from django.conf import settings

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
META_PROGRESS_TOKEN = "progressToken"  # noqa: S105 (a _meta key, not a secret)

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

# Freshness hint for cacheable modern results (2026-07-28 server/utilities/caching): the
# glossary is public and changes at editorial pace.
CACHE_TTL_MS = 300_000
CACHE_SCOPE = "public"

# Method names, the only spelling used anywhere in the package.
INITIALIZE = "initialize"
INITIALIZED = "notifications/initialized"
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
CANCELLED = "notifications/cancelled"

# Methods whose modern HTTP requests must mirror `params.name`/`params.uri` in Mcp-Name.
NAME_BEARING = {TOOLS_CALL: "name", PROMPTS_GET: "name", RESOURCES_READ: "uri"}

CAPABILITIES = {
    "tools": {"listChanged": False},
    "resources": {"subscribe": False, "listChanged": False},
    "prompts": {"listChanged": False},
    "completions": {},
    "logging": {},
}

# Delivered on HTTP streams (mcp_endpoint/streams.py); stdio has no push channel yet.
HTTP_CAPABILITIES = {**CAPABILITIES, "resources": {"subscribe": True, "listChanged": True}}


def capabilities(transport: str) -> dict:
    return HTTP_CAPABILITIES if transport == "http" else CAPABILITIES


INSTRUCTIONS = """\
Słownik is a Polish glossary of technical terms (AI agents, MCP, web, security) with \
articles that use them. Content is in Polish; answer the user in their language.
- Find a term: search_term {query} (accepts Polish or English names, synonyms, abbreviations), \
then get_term {slug} for the full entry (definition, Markdown body, synonyms, related terms, \
articles, page URL). If get_term says a slug is unknown, use one of the slugs it suggests.
- Browse: list_terms {letter?, category?, cursor?}; articles: search_articles {query}, \
get_article {slug}.
- The same entries are resources glossary://terms/{slug} and glossary://articles/{slug} \
(Markdown); prompts explain_term, compare_terms and summarize_article embed them.
- Cite the page URL returned with each entry when you quote the glossary.

Słownik to polski słownik pojęć technicznych z artykułami, które z nich korzystają. \
Szukaj pojęć narzędziem search_term, pełny wpis pobierzesz przez get_term (slug), listę \
alfabetyczną przez list_terms, artykuły przez search_articles i get_article. Te same wpisy są \
zasobami glossary://terms/{slug} i glossary://articles/{slug}. Cytując słownik, podawaj \
adres strony zwrócony przy wpisie."""


def server_info() -> dict:
    """The `Implementation` object naming this server (2025-11-25 adds description/websiteUrl)."""
    return {
        "name": settings.MCP_SERVER_NAME,
        "title": settings.MCP_SERVER_TITLE,
        "version": settings.MCP_SERVER_VERSION,
        "description": "Polski słownik pojęć technicznych: definicje, powiązania i artykuły.",
        "websiteUrl": settings.SITE_URL + "/",
    }
