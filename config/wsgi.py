"""WSGI entry point: one Django handler per kind of request, in one process.

Requests to the MCP endpoint (/wp-json/<namespace>/mcp) go to a handler built with
`settings.MCP_MIDDLEWARE` only (JSON Host validation and SecurityMiddleware's redirect and
headers), the rest of /wp-json/ (the REST API, api/) to one with `settings.REST_MIDDLEWARE`
(sessions and auth besides; without them for requests carrying no session cookie),
everything else to the site's handler with the full `MIDDLEWARE`.
Why: the MCP path is the hot one (bench/mcp.py), and sessions, auth, messages, CSRF, frame
options and WhiteNoise do nothing for a CSRF-exempt JSON API but cost CPU on every call; the
REST API needs sessions and auth, not the page middleware (bench/rest.py). All handlers send the
request_started/finished signals, so connection handling is the same. POSTs to the MCP endpoint
go through `mcp_endpoint.transports.fastpath` first, which replays answers the MCP handler
already gave from its result cache; the handlers are `mcp_endpoint.transports.wsgi.LeanHandler`
over each list. Tests go through Django's test client (the full list), which covers the same
views; tests/live/test_production_topology.py serves this module.
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
from django.http.response import HttpResponseBase  # noqa: E402

from config.connections import drop_closed_connections  # noqa: E402
from mcp_endpoint.transports import fastpath  # noqa: E402  (after setup)
from mcp_endpoint.transports.wsgi import LeanHandler  # noqa: E402

mcp_application = LeanHandler()
# Persistent connections a database restart killed are dropped before a request uses them.
signals.request_started.connect(drop_closed_connections)


class RestHandler(LeanHandler):
    """The REST API (api/) with `settings.REST_MIDDLEWARE`: sessions and auth (session
    logins, CSRF checked by DRF itself), none of the page middleware."""

    middleware_setting = "REST_MIDDLEWARE"
    # The collections' and the index's paths (~40 µs a resolve, bench/rest.py); an entry's
    # path (an id in it) is resolved on each request.
    resolved_paths = 32
    unkept_routes = frozenset({"no-route"})


class SessionlessRestHandler(RestHandler):
    """The REST API for requests that carry no session cookie (`settings.
    REST_SESSIONLESS_MIDDLEWARE`): nothing for sessions and auth middleware to load.
    Application passwords are HTTP Basic, which DRF checks itself (api/authentication.py);
    DRF's session authentication finds no user on the request and passes, as it would for a
    request whose cookie names no session."""

    middleware_setting = "REST_SESSIONLESS_MIDDLEWARE"


rest_application = RestHandler()
sessionless_rest_application = SessionlessRestHandler()
# A session cookie in the Cookie header ("name=" anywhere in it: another cookie whose name
# ends the same way only sends its request to the handler with sessions, which then finds no
# session: the full list is always the safe side).
_SESSION_COOKIE = settings.SESSION_COOKIE_NAME + "="

_ENDPOINT = f"/wp-json/{settings.MCP_NAMESPACE.strip('/')}/mcp"
MCP_ENDPOINTS = frozenset({_ENDPOINT, _ENDPOINT + "/"})
# The rest of /wp-json/ is the REST API: its own handler, with the middleware it needs.
REST_PREFIX = "/wp-json/"


def application(environ, start_response):
    path = environ.get("PATH_INFO", "")
    if path in MCP_ENDPOINTS:
        # A POST whose answer the MCP handler already gave from its result cache is replayed
        # without building a Django request (mcp_endpoint/transports/fastpath.py).
        return as_bytes(fastpath.serve(environ, start_response, mcp_application))
    if path.startswith(REST_PREFIX):
        if _SESSION_COOKIE in environ.get("HTTP_COOKIE", ""):
            return as_bytes(rest_application(environ, start_response))
        return as_bytes(sessionless_rest_application(environ, start_response))
    return as_bytes(site_application(environ, start_response))


def as_bytes(response):
    """A response whose body is already in memory, as a one-item list; streams unchanged.

    Why: granian sends a list's bytes in one call, but walks any other iterable from its own
    runtime: a bounded channel fed chunk by chunk, the GIL released and taken back per chunk,
    and `close()` called from its side. With the other wave-6 changes a cold MCP `get_term`
    went from 1.71 to 1.49 ms of server CPU under wrk (docs/benchmarks.md, "Before and after
    wave 6"). `close()` is what the server would have called after the last chunk: it sends
    `request_finished`, now just before the bytes go out instead of just after.
    """
    if not isinstance(response, HttpResponseBase) or response.streaming:
        return response
    try:
        return [response.content]
    finally:
        response.close()


# Everything start-up made (Django, the apps, URLconfs, compiled schemas: ~115,000 objects)
# lives as long as the process, yet the cyclic garbage collector walked all of it in every
# full collection: ~70 ms with the GIL held, once every ~1,500 MCP calls (a p99 spike for the
# requests in flight) and ~35 µs a call on average, of a cold get_term's ~1.3 ms (issue 16;
# measured in-process with gc.callbacks). Frozen, they are left out of every collection; the
# objects requests make are collected as before.
gc.collect()
gc.freeze()
