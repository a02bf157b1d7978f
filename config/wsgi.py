"""WSGI entry point: the site's Django handler, and lean ones for the two JSON APIs.

Requests to the MCP endpoint (/wp-json/<namespace>/mcp) go to a handler built from
`settings.MCP_MIDDLEWARE` (JSON Host validation, SecurityMiddleware's redirect and headers),
the rest of /wp-json/ (the REST API, api/) to one built from `settings.REST_MIDDLEWARE` (the
same plus sessions and auth, for editors' session logins; DRF checks CSRF itself), everything
else to the site's handler with the full `MIDDLEWARE`. Why: messages, CSRF middleware, frame
options, the page security headers, WhiteNoise and the rest of the page list do nothing for a
JSON API but cost CPU on every call, 10% or more of a distinct MCP `get_term` or REST read
(docs/benchmarks.md, "The replay removed, lean handlers"). Every handler sends the
request_started/finished signals, so connection handling is the same. Tests go through
Django's test client (the full list), which covers the same views; tests/config/test_wsgi.py
calls this module and tests/live/test_production_topology.py serves it.
"""

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# A production entry point fails closed: DEBUG is off unless the environment sets it (`make run`
# does, for development); manage.py keeps the settings' development default.
os.environ.setdefault("DEBUG", "0")

site_application = get_wsgi_application()

from django.conf import settings  # noqa: E402  (after setup)
from django.core import signals  # noqa: E402
from django.core.handlers.exception import convert_exception_to_response  # noqa: E402
from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.http.response import HttpResponseBase  # noqa: E402
from django.utils.module_loading import import_string  # noqa: E402

from config.connections import drop_closed_connections  # noqa: E402


class LeanHandler(WSGIHandler):
    """Django's `WSGIHandler` over the middleware list `middleware_setting` names instead of
    `MIDDLEWARE`.

    Django has no public way to build a handler from another middleware list, so
    `load_middleware` mirrors `BaseHandler.load_middleware` (synchronous middleware only, as
    the listed ones are). That is an internal we lean on: tests/mcp/test_wsgi_seam.py compares
    this handler's state with a stock handler's and fingerprints the mirrored method, so a
    Django upgrade that changes it fails a named test instead of production."""

    def __init__(self, middleware_setting: str) -> None:
        self.middleware_setting = middleware_setting
        super().__init__()

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


mcp_application = LeanHandler("MCP_MIDDLEWARE")
rest_application = LeanHandler("REST_MIDDLEWARE")
# Persistent connections a database restart killed are dropped before a request uses them.
signals.request_started.connect(drop_closed_connections)

_ENDPOINT = f"/wp-json/{settings.MCP_NAMESPACE.strip('/')}/mcp"
MCP_ENDPOINTS = frozenset({_ENDPOINT, _ENDPOINT + "/"})
REST_PREFIX = "/wp-json/"


def application(environ, start_response):
    path = environ.get("PATH_INFO", "")
    if path in MCP_ENDPOINTS:
        return as_bytes(mcp_application(environ, start_response))
    if path.startswith(REST_PREFIX):
        return as_bytes(rest_application(environ, start_response))
    return as_bytes(site_application(environ, start_response))


def as_bytes(response):
    """A response whose body is already in memory, as a one-item list; streams unchanged.

    Why: granian sends a list's bytes in one call, but walks any other iterable from its own
    runtime: a bounded channel fed chunk by chunk, the GIL released and taken back per chunk,
    and `close()` called from its side (docs/benchmarks.md). `close()` is what the server
    would have called after the last chunk: it sends `request_finished`, now just before the
    bytes go out instead of just after.
    """
    if not isinstance(response, HttpResponseBase) or response.streaming:
        return response
    try:
        return [response.content]
    finally:
        response.close()


# Everything start-up made (Django, the apps, URLconfs, compiled schemas) lives as long as the
# process, yet the cyclic garbage collector would walk all of it in every full collection, with
# the GIL held: a latency spike for the requests in flight (docs/benchmarks.md). Frozen, these
# objects are left out of every collection; the objects requests make are collected as before.
gc.collect()
gc.freeze()
