"""`{% api_links %}` in a page's <head>: the REST API root (`rel="https://api.w.org/"`) and,
on an entry's page, its REST object (`rel="alternate"; type="application/json"`), as
WordPress's themes print them. api/middleware.py mirrors the tags as Link headers."""

from django import template
from django.utils.html import format_html, format_html_join

from .. import links

register = template.Library()


@register.simple_tag
def api_links(entry=None, kind: str = ""):
    tags = [(links.api_root(), 'rel="https://api.w.org/"')]
    if entry is not None and kind in links.TYPES:
        tags.append((f"{links.route(kind)}/{entry.pk}", 'rel="alternate" type="application/json"'))
    return format_html_join(
        "\n  ", '<link {} href="{}">', ((format_html(attrs), href) for href, attrs in tags)
    )
