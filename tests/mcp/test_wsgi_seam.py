"""The lean handlers' seam (config/wsgi.py `LeanHandler`): it mirrors Django's
`BaseHandler.load_middleware` over `settings.MCP_MIDDLEWARE` or `REST_MIDDLEWARE`. These tests
fail by name when a Django upgrade changes what it mirrors, instead of the production handler
quietly missing a step Django added."""

import hashlib
import inspect

from django.conf import settings
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIHandler
from django.urls import reverse
from django.utils.module_loading import import_string

from config.wsgi import LeanHandler

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
    stock, lean = WSGIHandler(), LeanHandler("MCP_MIDDLEWARE")
    state = {name for name in vars(stock) if name.startswith("_")}
    assert state == {name for name in vars(lean) if name.startswith("_")}
    assert state >= {"_middleware_chain", "_view_middleware", "_exception_middleware"}


def test_the_lean_lists_are_synchronous_middleware_only():
    """LeanHandler skips Django's sync/async adaptation: every listed middleware must be
    sync-capable and must not opt out with MiddlewareNotUsed."""
    for path in [*settings.MCP_MIDDLEWARE, *settings.REST_MIDDLEWARE]:
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
    handler = LeanHandler("MCP_MIDDLEWARE")
    # The MCP endpoint: a plain view (the REST routes under /wp-json/ are DRF's, which sets
    # request.user itself).
    request = rf.post(reverse("mcp_endpoint:mcp"), data=b"{}", content_type="application/json")
    handler.get_response(request)
    assert seen == list(settings.MCP_MIDDLEWARE)
    assert not hasattr(request, "session") and not hasattr(request, "user")
