"""JSON out through orjson (already the MCP path's encoder): the same bytes DRF's renderer
would send for our plain dicts, in a fraction of the time on large lists."""

import orjson
from rest_framework import renderers


class JSONRenderer(renderers.BaseRenderer):
    media_type = "application/json"
    format = "json"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        return orjson.dumps(data)
