"""The request body parser: DRF's JSON parser, with nesting too deep for Python answered as
the bad input it is.

Why: DRF's `JSONParser` turns a `ValueError` from `json` into a `ParseError` (400
`rest_invalid_json`), but a body nested about a thousand levels deep makes `json` raise
`RecursionError` instead, which DRF lets through: a 2 KB body from any editor was a 500 with
a traceback in the log. The MCP endpoint refuses the same body with -32700.
"""

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
