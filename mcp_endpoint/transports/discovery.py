"""Pre-connection discovery of the MCP endpoint: an MCP Server Card and an MCP Catalog, as
SEP-2127 "MCP Server Cards" DRAFTS them. Neither is part of any released MCP specification
(2025-11-25, 2026-07-28): SEP-2127 (modelcontextprotocol/modelcontextprotocol PR 2127, which
supersedes SEP-1649) is still a draft, maintained as the experimental extension
modelcontextprotocol/experimental-ext-server-card (docs/discovery.md, schema.ts). Both
documents say "draft" in them (`_meta`, `specVersion`), and both are built from the one
server object, so they cannot drift from what `initialize`/`server/discover` answer.

Where, per that draft: the card at `GET <streamable-http-url>/server-card` (the location the
draft reserves; `.well-known` was considered and rejected there for per-server cards) with the
media type `application/mcp-server-card+json`; the domain's catalog, which points clients to
the card, at `/.well-known/mcp/catalog.json`. Both are public, read-only metadata: CORS `*`
and `Cache-Control: public, max-age=3600`, as the draft asks. The card names no primitives
(tools, resources, prompts): the draft leaves those to the runtime list methods.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

import orjson
from django.conf import settings
from django.http import HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_safe

from ..core import protocol as p
from ..core.server import get_server

CARD_TYPE = "application/mcp-server-card+json"
CARD_SCHEMA = "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json"
CATALOG_SPEC_VERSION = "draft"
DRAFT_NOTE = {
    "pl.slownik/status": "SEP-2127 draft (not part of a released MCP specification)",
}


def _site_url() -> str:
    """The canonical site address: the server's websiteUrl (what `initialize` says), else
    settings.SITE_URL."""
    return (get_server().info().get("websiteUrl") or settings.SITE_URL).rstrip("/")


def endpoint_url() -> str:
    return _site_url() + reverse("mcp_endpoint:mcp")


def card_url() -> str:
    return _site_url() + reverse("mcp_endpoint:server-card")


def _host() -> str:
    return (urlsplit(_site_url()).hostname or "localhost").lower()


def card_name() -> str:
    """Reverse-DNS `namespace/name` (schema.ts: ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$) from the
    site's host and the server's name: slownik.example + slownik -> example.slownik/slownik.
    An IP address has no domain order to reverse: 127.0.0.1 stays 127.0.0.1 (an IPv6
    address's colons become hyphens, which the pattern allows)."""
    host = _host()
    try:
        namespace = ipaddress.ip_address(host.strip("[]")).compressed.replace(":", "-")
    except ValueError:
        namespace = ".".join(reversed(host.split(".")))
    name = "".join(c if c.isalnum() or c in "._-" else "-" for c in get_server().name)
    return f"{namespace}/{name or 'mcp'}"


def server_card() -> dict:
    server = get_server()
    info = server.info()
    card = {
        "$schema": CARD_SCHEMA,
        "name": card_name(),
        "version": info["version"],
        # schema.ts: 1–100 characters.
        "description": (info.get("description") or info.get("title") or info["name"])[:100],
        "title": (info.get("title") or info["name"])[:100],
        "websiteUrl": _site_url() + "/",
        "remotes": [
            {
                "type": "streamable-http",
                "url": endpoint_url(),
                "supportedProtocolVersions": list(p.SUPPORTED_VERSIONS),
            }
        ],
        "_meta": DRAFT_NOTE,
    }
    return card


def catalog() -> dict:
    server = get_server()
    return {
        "specVersion": CATALOG_SPEC_VERSION,
        "entries": [
            {
                "identifier": f"urn:air:{_host()}:{card_name().split('/', 1)[1]}",
                "displayName": server.title or server.name,
                "type": CARD_TYPE,
                "url": card_url(),
            }
        ],
    }


def _public_json(data: dict, content_type: str) -> HttpResponse:
    response = HttpResponse(orjson.dumps(data), content_type=content_type)
    response["Access-Control-Allow-Origin"] = "*"
    response["Access-Control-Allow-Methods"] = "GET"
    response["Access-Control-Allow-Headers"] = "Content-Type"
    response["Cache-Control"] = "public, max-age=3600"
    return response


@require_safe
def server_card_view(request):
    """GET <mcp endpoint>/server-card (SEP-2127 draft)."""
    return _public_json(server_card(), CARD_TYPE)


@require_safe
def catalog_view(request):
    """GET /.well-known/mcp/catalog.json (SEP-2127 draft's MCP Catalog)."""
    return _public_json(catalog(), "application/json")
