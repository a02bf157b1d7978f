"""Site-wide middleware of the REST API.

`RestHostMiddleware`: a disallowed Host on a REST route is answered with WordPress's JSON
error, not Django's HTML 400 page (the MCP endpoint keeps its own JSON-RPC answer).

`ApiDiscoveryMiddleware`: every HTML page says where the API is, as WordPress does:
`Link: <…/wp-json/>; rel="https://api.w.org/"`. Term and article pages also name their own
REST object (`rel="alternate"; type="application/json"`): the page template writes that
`<link>` tag (templatetags/api_discovery.py) and this middleware copies it into the header,
so the two never disagree and term pages served from the page cache carry it too.
"""

import re

import orjson
from django.core.exceptions import DisallowedHost
from django.http import HttpResponse

from glossary.site import site_url

from . import links

PREFIX = "/wp-json/"
_MCP = re.compile(r"^/wp-json/[^/]+/v\d+/mcp/?$")
_ALTERNATE = re.compile(
    rb'<link rel="alternate" type="application/json" href="([^"<>]+)"', re.IGNORECASE
)
# The tag sits in <head>, well inside the first few kilobytes of any page.
_HEAD_BYTES = 16384


class RestHostMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        path = request.path_info
        if path.startswith(PREFIX) and not _MCP.match(path):
            try:
                request.get_host()
            except DisallowedHost:
                body = {
                    "code": "rest_invalid_host",
                    "message": "Ten serwer nie obsługuje tej nazwy hosta (ALLOWED_HOSTS).",
                    "data": {"status": 400},
                }
                return HttpResponse(orjson.dumps(body), status=400, content_type="application/json")
        return self.get_response(request)


class ApiDiscoveryMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        content_type = response.get("Content-Type", "")
        if not content_type.startswith("text/html") or request.path_info.startswith(PREFIX):
            return response
        values = [f'<{links.api_root()}>; rel="https://api.w.org/"']
        if not response.streaming:
            found = _ALTERNATE.search(response.content[:_HEAD_BYTES])
            if found and found[1].decode().startswith(site_url()):
                values.append(f'<{found[1].decode()}>; rel="alternate"; type="application/json"')
        existing = response.get("Link")
        response["Link"] = ", ".join([existing, *values] if existing else values)
        return response
