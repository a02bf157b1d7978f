"""Pre-connection discovery (mcp_endpoint/transports/discovery.py): the MCP Server Card and
MCP Catalog as the SEP-2127 draft shapes them (experimental-ext-server-card: schema.ts,
docs/discovery.md), and the MCP endpoint in the /wp-json/ index."""

import re

import orjson
import pytest

from mcp_endpoint.core import protocol as p

pytestmark = pytest.mark.django_db

SITE_URL = "https://slownik.example"
CARD = "/wp-json/webflux/v1/mcp/server-card"


@pytest.fixture(autouse=True)
def _site(settings, monkeypatch):
    settings.SITE_URL = SITE_URL
    from mcp_endpoint.core.server import get_server

    monkeypatch.setattr(get_server(), "website_url", SITE_URL + "/")


def test_server_card_has_the_drafts_shape(client, django_assert_num_queries):
    """The card (SEP-2127 draft, schema.ts ServerCard): the v2 $schema, a reverse-DNS name,
    version, a 1–100 character description, the Streamable HTTP remote with every supported
    protocol version; served as application/mcp-server-card+json without a query."""
    with django_assert_num_queries(0):
        response = client.get(CARD, HTTP_ACCEPT="application/mcp-server-card+json")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/mcp-server-card+json"
    card = orjson.loads(response.content)
    assert (
        card["$schema"]
        == "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json"
    )
    assert re.fullmatch(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+", card["name"])
    assert card["name"] == "example.slownik/slownik"
    assert 1 <= len(card["description"]) <= 100
    assert card["remotes"] == [
        {
            "type": "streamable-http",
            "url": f"{SITE_URL}/wp-json/webflux/v1/mcp",
            "supportedProtocolVersions": list(p.SUPPORTED_VERSIONS),
        }
    ]
    assert "draft" in card["_meta"]["pl.slownik/status"]
    assert "tools" not in card  # primitives are listed at runtime, not in the card


@pytest.mark.parametrize(
    ("site", "name"),
    [
        ("https://slownik.example", "example.slownik/slownik"),
        ("http://127.0.0.1:8000", "127.0.0.1/slownik"),
        ("http://[::1]:8000", "--1/slownik"),
        ("http://localhost:8000", "localhost/slownik"),
    ],
)
def test_card_name_reverses_domains_not_ip_addresses(monkeypatch, site, name):
    """The card's reverse-DNS name reverses a domain's labels; an IP address (what a
    development server runs on) is kept in its own order, its colons as hyphens, and the
    name still matches the schema's pattern."""
    from mcp_endpoint.core.server import get_server
    from mcp_endpoint.transports import discovery

    monkeypatch.setattr(get_server(), "website_url", site + "/")
    assert discovery.card_name() == name
    assert re.fullmatch(r"[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+", name)


def test_server_card_matches_what_initialize_says(client):
    """docs/discovery.md §Consistency with Runtime Behavior: name/version agree with the
    server's own Implementation object."""
    from mcp_endpoint.core.server import get_server

    card = orjson.loads(client.get(CARD).content)
    info = get_server().info()
    assert card["version"] == info["version"]
    assert card["title"] == info["title"][:100]


@pytest.mark.parametrize("path", [CARD, "/.well-known/mcp/catalog.json"])
def test_discovery_documents_are_public_and_cacheable(client, path):
    """Both documents carry CORS * and a public one-hour cache (docs/discovery.md §CORS
    Requirements, §Caching); they are read-only (POST is 405)."""
    response = client.get(path)
    assert response["Access-Control-Allow-Origin"] == "*"
    assert response["Cache-Control"] == "public, max-age=3600"
    assert client.post(path).status_code == 405


def test_catalog_points_to_the_card(client):
    """/.well-known/mcp/catalog.json lists this server's card (specVersion "draft")."""
    catalog = orjson.loads(client.get("/.well-known/mcp/catalog.json").content)
    assert catalog["specVersion"] == "draft"
    (entry,) = catalog["entries"]
    assert entry["type"] == "application/mcp-server-card+json"
    assert entry["url"] == SITE_URL + CARD
    assert entry["identifier"] == "urn:air:slownik.example:slownik"


@pytest.fixture
def fresh_routes():
    """The REST index caches its routes (with SITE_URL in their links) per process."""
    from api import schema

    schema._CACHE.clear()
    yield
    schema._CACHE.clear()


def test_rest_index_advertises_the_mcp_endpoint(client, fresh_routes):
    """/wp-json/ names the MCP endpoint, its transport, the card and llms.txt."""
    index = orjson.loads(client.get("/wp-json/").content)
    assert index["mcp"] == {
        "endpoint": f"{SITE_URL}/wp-json/webflux/v1/mcp",
        "transport": "streamable-http",
        "server_card": f"{SITE_URL}{CARD}",
        "llms_txt": f"{SITE_URL}/llms.txt",
    }
