"""The one canonical site address (glossary/site.py): stored in django.contrib.sites' row
SITE_ID, so every process of a deployment (web workers, an agent's stdio server) and every
interface (pages, feeds, sitemap, REST, MCP) hands out URLs on the same origin."""

import io

import orjson
import pytest
from django.conf import settings
from django.contrib.sites.models import Site
from django.core.management import CommandError, call_command

from glossary import site
from mcp_endpoint.transports.stdio import serve
from tests.factories import make_article, make_term

SITE = "https://slownik.example"

# (stored domain, origin) — the scheme rule of glossary/site.py, both ways.
ADDRESSES = [
    pytest.param("slownik.example", "https://slownik.example", id="public host -> https"),
    pytest.param("127.0.0.1:8000", "http://127.0.0.1:8000", id="loopback with port -> http"),
    pytest.param("localhost", "http://localhost", id="localhost -> http"),
    pytest.param("[::1]:8000", "http://[::1]:8000", id="IPv6 loopback -> http"),
    pytest.param("intranet:8080", "http://intranet:8080", id="explicit port -> http"),
]


@pytest.mark.parametrize(("domain", "url"), ADDRESSES)
def test_domain_and_origin_round_trip(domain, url):
    """A stored domain gives one origin, and that origin gives back the same domain."""
    assert site.url_for(domain) == url
    assert site.domain_for(url) == domain


def test_an_origin_typed_into_the_admin_is_taken_as_it_is():
    """The admin's Site form takes any text; an origin typed there is used unchanged."""
    assert site.url_for("https://slownik.example/") == "https://slownik.example"


@pytest.mark.parametrize(
    "url",
    [
        pytest.param("ftp://slownik.example", id="not http(s)"),
        pytest.param("https://slownik.example/slownik/", id="has a path"),
        pytest.param("http://slownik.example", id="plain http on a public host, no port"),
        pytest.param("https://slownik.example:8443", id="https on another port"),
        pytest.param("slownik.example", id="no scheme"),
    ],
)
def test_addresses_the_rule_cannot_store_are_refused(url):
    """`manage.py site_url` refuses an address it could not give back unchanged."""
    with pytest.raises(ValueError, match=r"origin|cannot be stored|path"):
        site.domain_for(url)


@pytest.mark.django_db
def test_migrate_gives_a_new_site_the_configured_address():
    """`migrate` stores SITE_URL as the site's domain (not Django's example.com placeholder)."""
    assert Site.objects.get(pk=settings.SITE_ID).domain == site.domain_for(settings.SITE_URL)
    assert site.site_url() == settings.SITE_URL


@pytest.mark.django_db
def test_site_url_command_shows_and_changes_the_address(site_address):
    """`manage.py site_url URL` stores the address every process reads; without URL it
    prints the current one; a bad one is a CommandError naming the rule."""
    site_address(settings.SITE_URL)  # restore the process's view after the test
    out = io.StringIO()
    call_command("site_url", SITE, stdout=out)
    assert Site.objects.get(pk=settings.SITE_ID).domain == "slownik.example"
    out = io.StringIO()
    call_command("site_url", stdout=out)
    assert out.getvalue().strip() == SITE
    with pytest.raises(CommandError, match="origin"):
        call_command("site_url", "slownik.example/x")


@pytest.mark.django_db
def test_every_interface_uses_the_stored_address(client, site_address):
    """After the Site row changes, the sitemap, the feed, the REST index, a REST entry's
    links, MCP over HTTP and MCP over stdio all name the new origin, and none the old."""
    site_address(SITE)
    term = make_term("MCP", slug="mcp")
    make_article("O MCP", slug="o-mcp", terms=[term])
    bodies = {
        "sitemap": client.get("/sitemap.xml").content.decode(),
        "feed": client.get("/artykuly/atom.xml").content.decode(),
        "rest": client.get("/wp-json/").content.decode(),
        "rest term": client.get(f"/wp-json/webflux/v1/terms/{term.pk}").content.decode(),
    }
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "get_term", "arguments": {"slug": "mcp"}},
    }
    response = client.post("/wp-json/webflux/v1/mcp", call, content_type="application/json",
                           HTTP_ACCEPT="application/json, text/event-stream")  # fmt: skip
    bodies["mcp http"] = response.content.decode()
    out = io.BytesIO()
    serve(io.BytesIO(orjson.dumps(call) + b"\n"), out)
    bodies["mcp stdio"] = out.getvalue().decode()
    for name, body in bodies.items():
        assert SITE in body, name
        assert "127.0.0.1:8000" not in body, name
    stdio = orjson.loads(out.getvalue())["result"]["structuredContent"]
    assert stdio["url"] == f"{SITE}/slownik/mcp/"
    assert stdio["articles"][0]["url"] == f"{SITE}/artykuly/o-mcp/"


@pytest.mark.django_db
def test_reading_the_content_state_leaves_the_remembered_address_alone(monkeypatch):
    """Reading the content state is a read: it changes nothing in the site module (no domain
    remembered, no address built); the site takes the domain from the state read last only
    when an address is asked for, so another process's change of address still arrives with
    the next state read."""
    from glossary import selectors

    assert site.site_url() == settings.SITE_URL
    Site.objects.filter(pk=settings.SITE_ID).update(domain="slownik.example")  # elsewhere

    def refuse(*args, **kwargs):
        raise AssertionError("the content state read changed the site's address")

    remembered = dict(site._state)
    monkeypatch.setattr(site, "seen", refuse)
    monkeypatch.setattr(site, "forget", refuse)
    assert selectors.content_state()[-1] == "slownik.example"
    assert site._state == remembered
    monkeypatch.undo()
    assert site.site_url() == SITE
    site.forget()


@pytest.mark.django_db
def test_a_state_read_before_forget_does_not_bring_the_old_address_back():
    """After this process saves a new address (`forget()`), a content state read before the
    save does not make `site_url()` give the old one again."""
    from glossary import selectors

    selectors.content_state()
    row = Site.objects.get(pk=settings.SITE_ID)
    original, row.domain = row.domain, "slownik.example"
    row.save()  # post_save: forget()
    try:
        assert site.site_url() == SITE
        assert site.site_url() == SITE  # the old state row, still the last read, is not taken
    finally:
        row.domain = original
        row.save()
