"""The WSGI entry point (config/wsgi.py): MCP endpoint requests go to a handler with the lean
MCP middleware list, everything else (the REST API included) to the site's; both keep Host
validation and the security headers."""

import json

import pytest
from django.core import signals
from django.http import HttpResponse, StreamingHttpResponse

from config import wsgi
from tests.wsgi_client import MCP, PING, call, environ_for


@pytest.fixture
def lean_handler_seen(monkeypatch):
    """Records which handler served each request."""
    seen = []
    for name in ("mcp_application", "site_application"):
        handler = getattr(wsgi, name)
        monkeypatch.setattr(
            wsgi, name, lambda env, sr, h=handler, n=name: seen.append(n) or h(env, sr)
        )
    return seen


@pytest.mark.django_db(transaction=True)
def test_mcp_requests_take_the_lean_handler(lean_handler_seen):
    """A POST to the MCP endpoint is answered by the lean handler, with a length (keep-alive
    without chunking), the security headers and no cookie or Vary: Cookie."""
    status, headers, content = call(MCP, method="POST", body=PING, accept="application/json")
    assert lean_handler_seen == ["mcp_application"]
    assert status == 200 and json.loads(content)["result"] == {}
    assert headers["content-length"] == str(len(content))
    assert headers["x-content-type-options"] == "nosniff"
    assert "set-cookie" not in headers and "cookie" not in headers.get("vary", "").lower()


@pytest.mark.django_db(transaction=True)
def test_the_lean_handler_still_validates_the_host(lean_handler_seen):
    """A Host outside ALLOWED_HOSTS gets the MCP JSON 400, not Django's HTML page."""
    status, _headers, content = call(MCP, method="POST", body=PING, host="evil.example")
    assert lean_handler_seen == ["mcp_application"]
    assert status == 400 and json.loads(content)["error"]["code"] == -32600


@pytest.mark.django_db(transaction=True)
def test_pages_take_the_site_handler(lean_handler_seen):
    """Reader pages keep the full middleware list (frame options among them)."""
    status, headers, _content = call("/")
    assert lean_handler_seen == ["site_application"]
    assert status == 200 and headers["x-frame-options"] == "DENY"


@pytest.mark.django_db(transaction=True)
def test_in_memory_answers_reach_the_server_as_one_chunk_after_request_finished():
    """An answer Django built in memory (a page, an MCP reply) is handed to the server as a
    one-item list of bytes, so granian sends it in one call; the response was closed first,
    so `request_finished` has run (the connection handling a server's close() would do)."""
    finished = []
    receiver = lambda **kwargs: finished.append(True)  # noqa: E731
    signals.request_finished.connect(receiver)
    try:
        for path, body, method in (("/", b"", "GET"), (MCP, PING, "POST")):
            finished.clear()
            environ = environ_for(path, method=method, body=body, accept="application/json")
            result = wsgi.application(environ, lambda status, headers, exc_info=None: None)
            assert isinstance(result, list) and len(result) == 1, path
            assert isinstance(result[0], bytes) and result[0], path
            assert finished == [True], path
    finally:
        signals.request_finished.disconnect(receiver)


@pytest.mark.django_db
def test_streams_stay_iterators_for_the_server_to_close():
    """A streaming response (SSE, files) is returned as it is: the server walks it and closes
    it when the client is done, so nothing is read ahead into memory."""
    closed = []
    stream = StreamingHttpResponse(iter([b"data: 1\n\n", b"data: 2\n\n"]))
    stream.close = lambda: closed.append(True)
    assert wsgi.as_bytes(stream) is stream
    assert closed == []
    plain = HttpResponse(b"x")
    assert wsgi.as_bytes(plain) == [b"x"]


def test_the_entry_point_leaves_start_up_objects_out_of_garbage_collection():
    """Importing the WSGI entry point freezes what start-up made (gc.freeze), so the cyclic
    collector's full passes walk only what requests made since: a fresh interpreter that
    imports config.wsgi has most of its objects frozen and few left to walk."""
    import os
    import subprocess
    import sys

    script = "import gc, config.wsgi; print(gc.get_freeze_count(), len(gc.get_objects()))"
    out = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "DEBUG": "1"},  # the entry point's production default needs secrets
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    frozen, walked = map(int, out.split())
    assert frozen > 50_000 and walked < frozen / 10, (frozen, walked)
