"""`{% api_links %}` in a page's <head>: the REST API root (`rel="https://api.w.org/"`) and,
on an entry's page, its REST object (`rel="alternate"; type="application/json"`), as
WordPress's themes print them. api/middleware.py mirrors the tags as Link headers."""

from django import template
from django.utils.html import format_html, format_html_join

from .. import links

register = template.Library()


@register.simple_tag
def api_links(entry=None, kind: str = ""):
    root = format_html('<link rel="https://api.w.org/" href="{}">', links.api_root())
    if entry is None or kind not in links.TYPES:
        return root
    alternate = format_html(
        '<link rel="alternate" type="application/json" href="{}">',
        f"{links.route(kind)}/{entry.pk}",
    )
    return format_html_join("\n  ", "{}", [(root,), (alternate,)])
