"""Markdown rendering for editor content: markdown-it-py with its own plugins, then nh3.

Editors may mix raw HTML into Markdown, so the renderer allows it and the sanitizer is the
single gate: only an allow-list of tags, attributes and classes survives, URLs are limited to
safe schemes (no `javascript:`), event handler attributes and `<script>`/`<style>` disappear.
The result is stored on the row, so pages never render Markdown per request; the admin's
live preview calls the same `render_markdown()` (no second renderer).

What editors get beyond CommonMark: tables, ~~strikethrough~~, footnotes (`[^1]`), bare URLs
turned into links (linkify-it-py), fenced code with a `language-…` class, and two ways to keep
a passage out of auto-linking (glossary/autolink.py): `[tekst]{.bez-linkow}` inline and a
`::: bez-linkow` … `:::` block. Headings are shifted one level down (`# Tytuł` -> `<h2>`):
the page's own title is its only `<h1>`.
"""

import re

import nh3
from markdown_it import MarkdownIt
from mdit_py_plugins.attrs import attrs_plugin
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.footnote import footnote_plugin

# The class that keeps a passage out of auto-linking (glossary/autolink.py reads it).
NO_LINK_CLASS = "bez-linkow"


def _shift_headings(state) -> None:
    """`# x` is an <h2>, `##` an <h3> … (h6 stays h6): the entry's title is the page's h1."""
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + 1, 6)}"


_md = (
    MarkdownIt("commonmark", {"html": True, "linkify": True, "typographer": False})
    .enable(["table", "strikethrough", "linkify"])
    .use(footnote_plugin)
    # Only a class, and only spans: `[tekst]{.bez-linkow}`; nh3 below keeps that one class.
    .use(attrs_plugin, spans=True, allowed={"class"}, after=("span_close",))
    .use(container_plugin, name=NO_LINK_CLASS)
)
_md.core.ruler.push("shift_headings", _shift_headings)

_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "dfn", "div", "dl", "dt", "em",
    "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "kbd", "li", "mark", "ol", "p", "pre", "q",
    "s", "samp", "section", "small", "span", "strong", "sub", "sup", "table", "tbody", "td",
    "tfoot", "th", "thead", "tr", "u", "ul", "var",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title", "id"},
    "abbr": {"title"},
    "img": {"src", "alt", "title", "width", "height"},
    "th": {"align", "scope", "style"},
    "td": {"align", "style"},
    "li": {"id"},
    "ol": {"start"},
    # Fenced code: markdown-it writes `language-<info>`; the filter below checks its shape.
    "code": {"class"},
}
_CLASSES = {
    "div": {NO_LINK_CLASS},
    "span": {NO_LINK_CLASS},
    "sup": {"footnote-ref"},
    "section": {"footnotes"},
    "ol": {"footnotes-list"},
    "li": {"footnote-item"},
    "a": {"footnote-backref"},
    "hr": {"footnotes-sep"},
}
_URL_SCHEMES = {"http", "https", "mailto"}
# Ids only as the footnote plugin writes them (fn1, fnref1, fnref1:2): an editor's own
# `id="tresc"` could otherwise clobber the page's elements.
_FOOTNOTE_ID = re.compile(r"fn(?:ref)?\d{1,4}(?::\d{1,3})?")
_LANGUAGE_CLASS = re.compile(r"language-[A-Za-z0-9_+#.-]{1,40}")
# Table cell alignment as markdown-it writes it, nothing else of CSS.
_ALIGN_STYLE = re.compile(r"text-align:(left|right|center)")


def _filter_attribute(tag: str, attribute: str, value: str) -> str | None:
    if attribute == "id":
        return value if _FOOTNOTE_ID.fullmatch(value) else None
    if attribute == "style":
        return value if _ALIGN_STYLE.fullmatch(value) else None
    if tag == "code" and attribute == "class":
        return value if _LANGUAGE_CLASS.fullmatch(value) else None
    return value


def sanitize_html(html: str) -> str:
    return nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        attribute_filter=_filter_attribute,
        allowed_classes=_CLASSES,
        url_schemes=_URL_SCHEMES,
        link_rel="noopener noreferrer",
        strip_comments=True,
    )


def render_markdown(source: str) -> str:
    """Render editor Markdown to HTML that is safe to mark as safe in templates."""
    if not source:
        return ""
    return sanitize_html(_md.render(source))


# --- Markdown for agents (MCP tools, resources, prompts) -----------------------------------
# An agent reads the editor's Markdown itself, not the page's HTML, so two things the page
# settles in HTML must be settled in the Markdown too: raw HTML (the page keeps only what the
# sanitizer allows; a model must not get `<script>` or a `javascript:` link either) and
# relative links (an agent has no page to resolve them against).
_INLINE_LINK = re.compile(r"(\]\()(/(?!/)[^\s)]*)")
_REFERENCE = re.compile(r"^( {0,3}\[[^\]\n]+\]:[ \t]*)(/(?!/)\S*)", re.MULTILINE)
_CODE = {"code_inline", "code_block", "fence"}


def _plain(tokens) -> bool:
    """True when the text has no raw HTML, no link or image other than absolute http(s),
    mailto or a site path, and no code that the link rewriting below could touch."""
    for token in tokens:
        if token.type in ("html_block", "html_inline"):
            return False
        if token.type in (*_CODE, "text") and ("](" in token.content or "]:" in token.content):
            return False  # code the rewriting could touch, or link syntax the parser refused
        if token.type in ("link_open", "image"):
            url = token.attrGet("href" if token.type == "link_open" else "src") or ""
            safe = url.startswith(("http://", "https://", "mailto:"))
            if not safe and not (url.startswith("/") and not url.startswith("//")):
                return False
        if token.children and not _plain(token.children):
            return False
    return True


class _AgentConverter:
    """markdownify over the page's sanitized HTML, with the page's heading levels given
    back (`#` for the page's <h2>), absolute URLs, and no text that reads as a tag."""

    _class = None

    @classmethod
    def get(cls):
        if cls._class is None:
            from markdownify import MarkdownConverter

            class Converter(MarkdownConverter):
                def escape(self, text, parent_tags):
                    text = super().escape(text, parent_tags)
                    # Text that would read as a tag or a link (`[x](javascript:…)` the parser
                    # refused) stays text.
                    return text.replace("<", r"\<").replace("[", r"\[").replace("]", r"\]")

                def convert_hN(self, n, el, text, parent_tags):
                    return super().convert_hN(n - 1, el, text, parent_tags)

                def convert_a(self, el, text, parent_tags):
                    href = el.get("href") or ""
                    if href.startswith("#") or not href:  # footnote jumps: page-only
                        del el["href"]
                    else:
                        el["href"] = _absolute(href, self.options["site"])
                    return super().convert_a(el, text, parent_tags)

                def convert_img(self, el, text, parent_tags):
                    if el.get("src"):
                        el["src"] = _absolute(el["src"], self.options["site"])
                    return super().convert_img(el, text, parent_tags)

            cls._class = Converter
        return cls._class


def _code_language(el) -> str:
    code = el.find("code")
    classes = code.get("class", []) if code is not None else []
    return next((c.removeprefix("language-") for c in classes if c.startswith("language-")), "")


def _absolute(url: str, site: str) -> str:
    from urllib.parse import urljoin

    return urljoin(site + "/", url)


def markdown_for_agents(source: str, *, site: str) -> str:
    """Editor Markdown as an agent should read it: every link absolute on `site`, and no raw
    HTML. Text without HTML or odd links (nearly all) is returned as written, with site paths
    (`](/slownik/sse/)`) made absolute; anything else is rebuilt from the HTML the page
    shows (`render_markdown`: the same sanitizer), so an agent never sees what a reader
    cannot (no `<script>`, no `javascript:` link, no event handler)."""
    if not source:
        return ""
    if _plain(_md.parse(source)):
        text = _INLINE_LINK.sub(lambda m: m[1] + site + m[2], source)
        return _REFERENCE.sub(lambda m: m[1] + site + m[2], text)
    converter = _AgentConverter.get()(
        site=site,
        heading_style="ATX",
        bullets="-",
        escape_underscores=False,
        code_language_callback=_code_language,
    )
    return converter.convert(render_markdown(source)).strip()
