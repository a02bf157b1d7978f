"""WSGI entry point: two Django handlers in one process.

Requests to the MCP endpoint (/wp-json/<namespace>/mcp) go to a handler built with
`settings.MCP_MIDDLEWARE` only (JSON Host validation and SecurityMiddleware's redirect and
headers), the rest of /wp-json/ (the REST API, api/) to one with `settings.REST_MIDDLEWARE`
(sessions and auth besides), everything else to the site's handler with the full `MIDDLEWARE`.
Why: the MCP path is the hot one (bench/mcp.py), and sessions, auth, messages, CSRF, frame
options and WhiteNoise do nothing for a CSRF-exempt JSON API but cost CPU on every call; the
REST API needs sessions and auth, not the page middleware (bench/rest.py). All handlers send the
request_started/finished signals, so connection handling is the same. POSTs to the MCP endpoint
go through `mcp_endpoint.fastpath` first, which replays answers the MCP handler already gave
from its result cache. Tests go through Django's test client (the full list), which covers the
same views; tests/test_production_topology.py serves this module.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

site_application = get_wsgi_application()

from django.conf import settings  # noqa: E402  (after setup)
from django.core.handlers.exception import convert_exception_to_response  # noqa: E402
from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.utils.module_loading import import_string  # noqa: E402


class McpHandler(WSGIHandler):
    """Django's WSGI handler with `settings.MCP_MIDDLEWARE` instead of `MIDDLEWARE`
    (synchronous middleware only, as the listed ones are)."""

    middleware_setting = "MCP_MIDDLEWARE"

    def load_middleware(self, is_async=False):
        self._view_middleware = []
        self._template_response_middleware = []
        self._exception_middleware = []
        handler = convert_exception_to_response(self._get_response)
        for path in reversed(getattr(settings, self.middleware_setting)):
            instance = import_string(path)(handler)
            if hasattr(instance, "process_view"):
                self._view_middleware.insert(0, instance.process_view)
            if hasattr(instance, "process_template_response"):
                self._template_response_middleware.append(instance.process_template_response)
            if hasattr(instance, "process_exception"):
                self._exception_middleware.append(instance.process_exception)
            handler = convert_exception_to_response(instance)
        self._middleware_chain = handler

    def get_response(self, request):
        response = super().get_response(request)
        # CommonMiddleware's job on the site: a length lets the server keep the connection
        # alive without chunked encoding.
        if not response.streaming and not response.has_header("Content-Length"):
            response.headers["Content-Length"] = str(len(response.content))
        return response


mcp_application = McpHandler()


class RestHandler(McpHandler):
    """The REST API (api/) with `settings.REST_MIDDLEWARE`: sessions and auth (session
    logins, CSRF checked by DRF itself), none of the page middleware."""

    middleware_setting = "REST_MIDDLEWARE"


rest_application = RestHandler()


from mcp_endpoint import fastpath  # noqa: E402  (after setup)

_ENDPOINT = f"/wp-json/{settings.MCP_NAMESPACE.strip('/')}/mcp"
MCP_ENDPOINTS = frozenset({_ENDPOINT, _ENDPOINT + "/"})
# The rest of /wp-json/ is the REST API: its own handler, with the middleware it needs.
REST_PREFIX = "/wp-json/"


def application(environ, start_response):
    path = environ.get("PATH_INFO", "")
    if path in MCP_ENDPOINTS:
        # A POST whose answer the MCP handler already gave from its result cache is replayed
        # without building a Django request (mcp_endpoint/fastpath.py).
        return fastpath.serve(environ, start_response, mcp_application)
    if path.startswith(REST_PREFIX):
        return rest_application(environ, start_response)
    return site_application(environ, start_response)
