"""The lean WSGI handlers: Django's `WSGIHandler` built from another middleware list than
`MIDDLEWARE` — `settings.MCP_MIDDLEWARE` for the MCP endpoint, `settings.REST_MIDDLEWARE`
(and `REST_SESSIONLESS_MIDDLEWARE`) for the REST API (config/wsgi.py routes to them).

Why: the MCP path is the hot one (bench/mcp.py), and sessions, auth, messages, CSRF, frame
options and WhiteNoise do nothing for a CSRF-exempt JSON API but cost CPU on every call.
Django has no public way to build a handler from another middleware list, so `load_middleware`
below mirrors `BaseHandler.load_middleware` (synchronous middleware only, as the listed ones
are) over the other list. That is an internal we lean on: tests/mcp/test_wsgi_seam.py compares
this handler's state with a stock handler's and fingerprints the Django method mirrored here,
so a Django upgrade that changes it fails a named test instead of production.
"""

from django.conf import settings
from django.core.handlers.exception import convert_exception_to_response
from django.core.handlers.wsgi import WSGIHandler, get_script_name
from django.urls import set_script_prefix
from django.utils.module_loading import import_string

# An environ key the WSGI replay (fastpath.py) sets when it has sent `request_started` for
# this request already and hands it on to the handler after a miss.
REQUEST_STARTED = "slownik.request_started"


class LeanHandler(WSGIHandler):
    """A WSGI handler whose middleware list is the setting named by `middleware_setting`."""

    middleware_setting = "MCP_MIDDLEWARE"
    # The MCP handler serves one route (two spellings of its path): resolving it through the
    # site's URLconf on every call cost ~5% of a cold get_term (bench/mcp.py, issue 16), so
    # the match of a path is kept. Only for requests on the default URLconf, only for paths
    # that resolved to a route with nothing captured from the path (an id in the path would
    # make every path another entry), and at most `resolved_paths` of them.
    resolved_paths = 4
    # Routes whose matches are never kept: a catch-all matches any path, and junk paths
    # would take the places of real ones.
    unkept_routes: frozenset = frozenset()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.matches: dict = {}

    def resolve_request(self, request):
        if hasattr(request, "urlconf") or not self.resolved_paths:
            return super().resolve_request(request)
        match = self.matches.get(request.path_info)
        if match is None:
            match = super().resolve_request(request)
            if (
                len(self.matches) < self.resolved_paths
                and not match.args
                and not match.kwargs
                and match.url_name not in self.unkept_routes
            ):
                self.matches[request.path_info] = match
        request.resolver_match = match
        return match

    def __call__(self, environ, start_response):
        if not environ.pop(REQUEST_STARTED, False):
            return super().__call__(environ, start_response)
        # The replay sent request_started and read the content state in this request, then
        # missed: one request, one request_started/request_finished pair (a second pair cost
        # ~80 µs of receivers per cache miss, issue 16). `WSGIHandler.__call__` without its
        # signal; tests/mcp/test_wsgi_seam.py fingerprints the mirrored method.
        set_script_prefix(get_script_name(environ))
        request = self.request_class(environ)
        response = self.get_response(request)
        response._handler_class = self.__class__  # response.close() sends request_finished
        status = f"{response.status_code} {response.reason_phrase}"
        response_headers = [
            *response.items(),
            *(("Set-Cookie", c.output(header="")) for c in response.cookies.values()),
        ]
        start_response(status, response_headers)
        if getattr(response, "file_to_stream", None) is not None and environ.get(
            "wsgi.file_wrapper"
        ):
            response.file_to_stream.close = response.close
            response = environ["wsgi.file_wrapper"](response.file_to_stream, response.block_size)
        return response

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
