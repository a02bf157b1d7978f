"""Markdown rendering for editor content: markdown-it-py, then nh3 sanitizing.

Editors may mix raw HTML into Markdown, so the renderer allows it and the sanitizer is the
single gate: only an allow-list of tags and attributes survives, URLs are limited to safe
schemes (no `javascript:`), event handler attributes and `<script>`/`<style>` disappear.
The result is stored on the row, so pages never render Markdown per request.
"""

import nh3
from markdown_it import MarkdownIt

_md = MarkdownIt("commonmark", {"html": True, "linkify": False, "typographer": False}).enable(
    ["table", "strikethrough"]
)

_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "dfn", "div", "dl", "dt", "em",
    "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "mark", "ol", "p", "pre", "q",
    "s", "samp", "small", "span", "strong", "sub", "sup", "table", "tbody", "td", "tfoot", "th",
    "thead", "tr", "u", "ul", "var",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "img": {"src", "alt", "title", "width", "height"},
    "th": {"align", "scope"},
    "td": {"align"},
    "code": {"class"},
    "ol": {"start"},
}
_URL_SCHEMES = {"http", "https", "mailto"}


def sanitize_html(html: str) -> str:
    return nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes=_URL_SCHEMES,
        link_rel="noopener noreferrer",
        strip_comments=True,
    )


def render_markdown(source: str) -> str:
    """Render editor Markdown to HTML that is safe to mark as safe in templates."""
    if not source:
        return ""
    return sanitize_html(_md.render(source))
