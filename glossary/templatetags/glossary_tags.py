"""Template helpers for the reader pages."""

import json
import re

from django import template
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.html import format_html
from django.utils.safestring import mark_safe

register = template.Library()

# The same escapes as Django's `json_script`: with <, > and & as \u escapes no string value
# can close the <script> element or open a comment, whatever an editor typed into a name.
_SCRIPT_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}


@register.filter(is_safe=True)
def jsonld(value) -> str:
    """`value` as a JSON-LD <script>; `json_script` would fix the type to application/json."""
    data = json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False).translate(_SCRIPT_ESCAPES)
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(data))  # noqa: S308


# Polish typesetting keeps an abbreviation with the word after it ("cz. 1", "np. MCP",
# "nr 3"): a line may not end with it.
_KEEP_WITH_NEXT = re.compile(r"(?<![\w.])(cz\.|np\.|nr|tzw\.|pkt|ok\.|wg|ang\.|m\.in\.) (?=\S)")


@register.filter
def nbsp(value) -> str:
    """`value` with a non-breaking space after abbreviations (escaped by the template as
    usual: the result is plain text)."""
    return _KEEP_WITH_NEXT.sub("\\1\u00a0", str(value))
