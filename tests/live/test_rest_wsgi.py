"""The REST API served for real: granian's WSGI interface over config.wsgi (the production
topology of the README), where /wp-json/ REST routes take their own handler."""

import http.client
import json
from urllib.parse import urlsplit

import pytest

from tests.processes import HOST, WSGI_SERVER_COMMAND

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def wsgi_site(live_site):
    return live_site.spawn("granian-rest", command=WSGI_SERVER_COMMAND)


def _get(server, path, headers=None):
    conn = http.client.HTTPConnection(HOST, server.port, timeout=30)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response, response.read()
    finally:
        conn.close()


def test_rest_reads_under_wsgi(wsgi_site):
    """A REST list under WSGI: JSON, totals, Link, ETag, a length; then 304 on its ETag."""
    response, body = _get(wsgi_site, "/wp-json/webflux/v1/terms?per_page=2&_embed")
    assert response.status == 200 and len(json.loads(body)) == 2
    assert int(response.getheader("X-WP-Total")) > 2 and 'rel="next"' in response.getheader("Link")
    assert response.getheader("Content-Length") == str(len(body))
    etag = response.getheader("ETag")
    again, empty = _get(wsgi_site, "/wp-json/webflux/v1/terms?per_page=2&_embed",
                        {"If-None-Match": etag})  # fmt: skip
    assert again.status == 304 and empty == b""


def test_pages_under_wsgi_link_their_rest_objects(wsgi_site):
    """Term pages under WSGI carry both discovery Link relations; the index lists routes."""
    response, _body = _get(wsgi_site, "/slownik/mcp/")
    links = response.getheader("Link")
    assert 'rel="https://api.w.org/"' in links and 'type="application/json"' in links
    alternate = links.split('; rel="alternate"')[0].rsplit("<", 1)[1].rstrip(">")
    # Absolute on the canonical site address (glossary/site.py), not on this server's port.
    path = urlsplit(alternate).path
    term, body = _get(wsgi_site, path)
    assert term.status == 200 and json.loads(body)["slug"] == "mcp"
    _index, body = _get(wsgi_site, "/wp-json/")
    assert "/webflux/v1/terms" in json.loads(body)["routes"]
