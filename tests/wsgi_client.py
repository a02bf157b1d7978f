"""Calling the production WSGI entry point (config/wsgi.py) in-process, with a hand-built
environ, as a WSGI server would."""

import io
import json
import sys

from config import wsgi

MCP = "/wp-json/webflux/v1/mcp"
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()


def call(path, *, method="GET", body=b"", host="127.0.0.1", environ=None, **headers):
    """One request; `environ` overrides or (with None values) removes environ keys."""
    environ = environ_for(path, method=method, body=body, host=host, environ=environ, **headers)
    started = {}

    def start_response(status, response_headers, exc_info=None):
        started["status"] = int(status.split()[0])
        started["headers"] = {k.lower(): v for k, v in response_headers}

    result = wsgi.application(environ, start_response)
    try:
        content = b"".join(result)
    finally:
        getattr(result, "close", lambda: None)()
    return started["status"], started["headers"], content


def environ_for(path, *, method="GET", body=b"", host="127.0.0.1", environ=None, **headers):
    """The WSGI environ a server would build for one request (see `call`)."""
    extra, environ = (
        environ or {},
        {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "80",
            "HTTP_HOST": host,
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(body),
            "wsgi.errors": sys.stderr,
            "CONTENT_LENGTH": str(len(body)),
            "CONTENT_TYPE": "application/json",
            **{"HTTP_" + k.upper(): v for k, v in headers.items()},
        },
    )
    environ.update(extra)
    return {k: v for k, v in environ.items() if v is not None}
