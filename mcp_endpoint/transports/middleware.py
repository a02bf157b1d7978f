"""Answers a bad Host on the /wp-json/ routes with a JSON-RPC error instead of Django's HTML
400 page. Django validates Host against ALLOWED_HOSTS lazily (`request.get_host()` raises
`DisallowedHost`, turned into an HTML response by the handler, a debug page under DEBUG);
MCP clients, including the conformance suite's DNS-rebinding check, expect a 4xx they can
parse. It must come before any middleware that calls `get_host()`.
"""

import logging

from django.core.exceptions import DisallowedHost

from ..core.errors import InvalidRequest
from .responses import error_response

logger = logging.getLogger("mcp_endpoint")

PREFIX = "/wp-json/"


class McpHostMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path_info.startswith(PREFIX):
            try:
                request.get_host()
            except DisallowedHost:
                logger.warning("Rejected MCP request with a disallowed Host header")
                return error_response(
                    InvalidRequest(
                        "Bad Request: the Host header is not one this server answers for "
                        "(ALLOWED_HOSTS)"
                    ),
                    400,
                )
        return self.get_response(request)
