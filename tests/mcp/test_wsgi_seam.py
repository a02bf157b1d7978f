"""The lean WSGI handler's seam (mcp_endpoint/transports/wsgi.py): it mirrors Django's
`BaseHandler.load_middleware` over `settings.MCP_MIDDLEWARE`, and `WSGIHandler.__call__` after a
replay miss. These tests fail by name when a Django upgrade changes what it mirrors, instead of
the production handler quietly missing a step Django added."""

import hashlib
import inspect

import pytest
from django.conf import settings
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIHandler
from django.urls import reverse
from django.utils.module_loading import import_string

from mcp_endpoint.transports.wsgi import LeanHandler

# sha256 of the source of the Django 5.2 `BaseHandler.load_middleware` that LeanHandler mirrors.
MIRRORED = "a1fb7ee5f8586195da2174d1bbc2bbfc7ca19b9d26ea66412cb434f45bf6d467"


def test_djangos_load_middleware_is_the_one_mirrored():
    """If this fails, Django changed BaseHandler.load_middleware: re-read it, bring
    LeanHandler.load_middleware in line, then update MIRRORED."""
    source = inspect.getsource(BaseHandler.load_middleware)
    assert hashlib.sha256(source.encode()).hexdigest() == MIRRORED


def test_the_lean_handler_sets_what_a_stock_handler_sets():
    """Same handler state as Django's own after loading (no attribute Django's request path
    reads is left unset), only over the lean list."""
    stock, lean = WSGIHandler(), LeanHandler()
    state = {name for name in vars(stock) if name.startswith("_")}
    assert state == {name for name in vars(lean) if name.startswith("_")}
    assert state >= {"_middleware_chain", "_view_middleware", "_exception_middleware"}


def test_the_lean_list_is_synchronous_middleware_only():
    """LeanHandler skips Django's sync/async adaptation: every listed middleware must be
    sync-capable and must not opt out with MiddlewareNotUsed."""
    for path in settings.MCP_MIDDLEWARE:
        middleware = import_string(path)
        assert getattr(middleware, "sync_capable", True), path
        assert middleware(lambda request: None) is not None, path


def test_the_chain_runs_exactly_the_lean_list(rf, monkeypatch):
    """A request through the lean handler passes every MCP_MIDDLEWARE entry, in order, and
    nothing else (no session, auth or CSRF middleware)."""
    seen = []
    for path in settings.MCP_MIDDLEWARE:
        cls = import_string(path)
        original = cls.__call__

        def spy(self, request, original=original, path=path):
            seen.append(path)
            return original(self, request)

        monkeypatch.setattr(cls, "__call__", spy)
    handler = LeanHandler()
    # The MCP endpoint: a plain view (the REST routes under /wp-json/ are DRF's, which sets
    # request.user itself).
    request = rf.post(reverse("mcp_endpoint:mcp"), data=b"{}", content_type="application/json")
    handler.get_response(request)
    assert seen == list(settings.MCP_MIDDLEWARE)
    assert not hasattr(request, "session") and not hasattr(request, "user")


# sha256 of the Django 5.2 `WSGIHandler.__call__` that LeanHandler mirrors after a replay miss.
CALL = "8391f497d588b2a0021c078fdceb400705b194e3651cb795465e87c2057d4cf9"


def test_djangos_wsgi_call_is_the_one_mirrored():
    """If this fails, Django changed WSGIHandler.__call__: bring LeanHandler.__call__ (the
    same steps without request_started, which the WSGI replay sent) in line, then update
    CALL."""
    source = inspect.getsource(WSGIHandler.__call__)
    assert hashlib.sha256(source.encode()).hexdigest() == CALL


# sha256 of the Django 5.2 `BaseHandler.resolve_request` whose result LeanHandler keeps.
RESOLVE = "ff178c3d63eebcd3e38110341593518dcd67d84cff94bbc7dd5aa323637cba6d"


def test_djangos_resolve_request_is_the_one_kept():
    """If this fails, Django changed BaseHandler.resolve_request: check that keeping its
    match per path (LeanHandler.resolve_request) is still all it does for the default
    URLconf, then update RESOLVE."""
    source = inspect.getsource(BaseHandler.resolve_request)
    assert hashlib.sha256(source.encode()).hexdigest() == RESOLVE


def test_the_mcp_handler_keeps_the_match_of_its_route_only(rf):
    """The MCP endpoint's path is resolved once and its match reused (the same view each
    time); a path that does not resolve is never kept, and a request with its own URLconf
    is resolved as Django does."""
    from django.urls import Resolver404

    handler = LeanHandler()
    path = reverse("mcp_endpoint:mcp")
    first = handler.resolve_request(rf.post(path))
    again = rf.post(path)
    assert handler.resolve_request(again) is first and again.resolver_match is first
    assert first.url_name == "mcp"
    with pytest.raises(Resolver404):
        handler.resolve_request(rf.post("/no-such-path/"))
    assert list(handler.matches) == [path]
    own = rf.post(path)
    own.urlconf = "config.urls"
    assert handler.resolve_request(own) is not first


def test_the_rest_handler_keeps_the_matches_of_fixed_paths_only(rf):
    """The REST handler keeps the match of a path naming a route with nothing captured (a
    collection, the index), never one with an id in the path (every entry would be another
    path) nor the catch-all `rest_no_route` (junk paths would take the places of real
    ones), and at most `resolved_paths` of them."""
    from config.wsgi import RestHandler

    handler = RestHandler()
    collection = reverse("api:term-list")
    first = handler.resolve_request(rf.get(collection))
    assert handler.resolve_request(rf.get(collection)) is first
    entry = handler.resolve_request(rf.get(reverse("api:term-detail", kwargs={"id": 7})))
    assert entry.kwargs == {"id": "7"}
    junk = handler.resolve_request(rf.get("/wp-json/no/such/route"))
    assert junk.url_name == "no-route"
    assert list(handler.matches) == [collection]
    for n in range(handler.resolved_paths + 5):
        handler.resolve_request(rf.get(f"{collection}/" if n % 2 else "/wp-json/"))
    assert len(handler.matches) <= handler.resolved_paths
