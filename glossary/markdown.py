"""Markdown rendering for editor content: markdown-it-py with its own plugins, then nh3.

Editors may mix raw HTML into Markdown, so the renderer allows it and the sanitizer is the
single gate: only an allow-list of tags, attributes and classes survives, URLs are limited to
safe schemes (no `javascript:`), event handler attributes and `<script>`/`<style>` disappear.
The result is stored on the row, so pages never render Markdown per request; the admin's
live preview calls the same `render_markdown()` (no second renderer).

What editors get beyond CommonMark: tables, ~~strikethrough~~, footnotes (`[^1]`), bare URLs
turned into links when written with a scheme or `www.` (linkify-it-py), fenced code with a
`language-…` class, and two ways to keep a passage out of auto-linking (glossary/autolink.py):
`[tekst]{.bez-linkow}` inline and a `::: bez-linkow` … `:::` block. Headings are shifted one
level down (`# Tytuł` -> `<h2>`): the page's own title is its only `<h1>`.

And back, for agents: `html_to_markdown` turns sanitized HTML into Markdown (markdownify)
for every text an agent reads, the pages' Markdown alternates (glossary/llms.py) and the MCP
answers (`markdown_for_agents`) alike.
"""

import functools
import re
from urllib.parse import urljoin

import nh3
from linkify_it import LinkifyIt
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


class _Addresses(LinkifyIt):
    """Linkify's matches that are addresses: a scheme (`https://…`, `mailto:…`, `//…`) or
    `www.` written out. Bare words with a dot ("m.in.", "np.", "example.com") and bare e-mail
    addresses stay text: in Polish prose they are abbreviations far more often than hosts."""

    def match(self, text):
        found = super().match(text) or []
        kept = [m for m in found if _written_address(m.raw, m.schema)]
        return kept or None


def _written_address(raw: str, schema: str) -> bool:
    lowered = raw.lower()
    return lowered.startswith("www.") if not schema else lowered.startswith(schema.lower())


_md = (
    MarkdownIt("commonmark", {"html": True, "linkify": True, "typographer": False})
    .enable(["table", "strikethrough", "linkify"])
    .use(footnote_plugin)
    # Only a class, and only spans: `[tekst]{.bez-linkow}`; nh3 below keeps that one class.
    .use(attrs_plugin, spans=True, allowed={"class"}, after=("span_close",))
    .use(container_plugin, name=NO_LINK_CLASS)
)
_md.linkify = _Addresses()
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


# Plain-text fields (names, definitions, leads) as Markdown text: backslash-escape what would
# start markup, links and raw HTML included (`[`, `]`, `<`, `>`).
_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")
_ANY_SPECIAL = re.compile(r"[\\`*_\[\]<>#|]")


def markdown_text(value: str) -> str:
    """A plain-text field, safe to put into Markdown as literal text, on one line: nothing an
    editor typed (`[Kliknij](javascript:…)`, `<b>`) reads as a link or HTML to an agent."""
    value = value or ""
    # Most fields need nothing: one line, single spaces, no markup character. An answer lists
    # dozens of them, so the common case costs two scans in C and no new string.
    if (
        value.isprintable()
        and "  " not in value
        and value[:1] != " "
        and value[-1:] != " "
        and _ANY_SPECIAL.search(value) is None
    ):
        return value
    return _SPECIAL.sub(r"\\\1", " ".join(value.split()))


# --- HTML back to Markdown (agents' texts) --------------------------------------------------
# One converter for every text an agent reads: the pages' Markdown alternates and
# /llms-full.txt (glossary/llms.py, from the stored `display_html`) and the MCP answers
# (`markdown_for_agents` below, when an editor's text holds HTML). It reads sanitized HTML
# only, so the sanitizer above stays the single gate for hostile input.
def html_to_markdown(
    html: str,
    *,
    base_url: str,
    heading_offset: int = 0,
    keep_fragments: bool = True,
    keep_titles: bool = False,
) -> str:
    """Sanitized HTML (`render_markdown`'s output, or a stored `display_html`) as Markdown:
    links and images absolute on `base_url` (`urljoin`), headings moved by `heading_offset`
    levels (kept within h1–h6), fenced code with the `language-…` class as its info string,
    and text escaped so that nothing in it reads as markup (a tag, a link, an entity, a list
    item: markdownify's `escape_misc`). Tags markdownify does not know are dropped to their
    text, so no HTML reaches the output.

    `keep_fragments=False` drops `#…` links (footnote jumps) to their text, for a reader who
    has no page to jump in; otherwise they point into the page at `base_url`.
    `keep_titles=False` removes link titles: an auto-link's title is the linked term's
    definition (the page's tooltip), noise in a Markdown link whose target says the same."""
    if not html:
        return ""
    converter = _converter_class()(
        base_url=base_url,
        heading_offset=heading_offset,
        keep_fragments=keep_fragments,
        keep_titles=keep_titles,
        heading_style="ATX",
        bullets="-",
        escape_misc=True,
        code_language_callback=_code_language,
    )
    return converter.convert(html).strip()


@functools.cache
def _converter_class():
    # markdownify imports BeautifulSoup (about 0.15 s): only a process that converts pays for
    # it, not every one that imports the models (they call `render_markdown` on save).
    from markdownify import MarkdownConverter

    class Converter(MarkdownConverter):
        def convert_a(self, el, text, parent_tags):
            href = el.get("href") or ""
            if href.startswith("#") and not self.options["keep_fragments"]:
                del el["href"]  # markdownify writes a link without href as its text
            elif href:
                el["href"] = urljoin(self.options["base_url"], href)
            if not self.options["keep_titles"]:
                del el["title"]
            return super().convert_a(el, text, parent_tags)

        def convert_img(self, el, text, parent_tags):
            if el.get("src"):
                el["src"] = urljoin(self.options["base_url"], el["src"])
            return super().convert_img(el, text, parent_tags)

        def convert_hN(self, n, el, text, parent_tags):
            # markdownify keeps the level within 1..6.
            return super().convert_hN(n + self.options["heading_offset"], el, text, parent_tags)

    return Converter


def _code_language(el) -> str:
    """The fence's info string: the `language-…` class of a <pre> or of its <code>."""
    code = el.find("code")
    classes = [c for node in (el, code) if node is not None for c in node.get("class") or []]
    return next((c.removeprefix("language-") for c in classes if c.startswith("language-")), "")


# --- Markdown for agents (MCP tools, resources, prompts) -----------------------------------
# An agent reads the editor's Markdown itself, not the page's HTML, so two things the page
# settles in HTML must be settled in the Markdown too: raw HTML (the page keeps only what the
# sanitizer allows; a model must not get `<script>` or a `javascript:` link either) and
# relative links (an agent has no page to resolve them against).
_INLINE_LINK = re.compile(r"(\]\()(/(?!/)[^\s)]*)")
_REFERENCE = re.compile(r"^( {0,3}\[[^\]\n]+\]:[ \t]*)(/(?!/)\S*)", re.MULTILINE)
_CODE = {"code_inline", "code_block", "fence"}
# What any raw HTML, link, image, footnote, attribute span or link-like code needs somewhere in
# the text: `<`, a bracket, or (linkify) `//`, `ftp:` or an upper-case `MAILTO:`. Text with
# none of them parses to tokens `_plain` accepts and that the rewriting leaves as they are.
_SCHEMES = re.compile(r"ftp:|mailto:", re.IGNORECASE)


def _maybe_markup(text: str) -> bool:
    """Whether `text` has one of those: `<`, `[`, `]`, `//`, `ftp:` or `mailto:` (ignoring
    case). The plain `in` tests first: a substring test is far cheaper than one
    case-insensitive regex over a whole body (docs/benchmarks.md, "Cold reads")."""
    if "<" in text or "[" in text or "]" in text or "//" in text:
        return True
    return ":" in text and _SCHEMES.search(text) is not None


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


def markdown_for_agents(source: str, *, site: str) -> str:
    """Editor Markdown as an agent should read it: every link absolute on `site`, and no raw
    HTML. Text without HTML or odd links (nearly all) is returned as written, with site paths
    (`](/slownik/sse/)`) made absolute; anything else is rebuilt from the HTML the page
    shows (`render_markdown`: the same sanitizer), so an agent never sees what a reader
    cannot (no `<script>`, no `javascript:` link, no event handler)."""
    if not source:
        return ""
    if not _maybe_markup(source):
        # Prose without markup (most bodies): returned as written without parsing it, a
        # large share of a cold get_term's CPU saved (docs/benchmarks.md, "Cold reads").
        # Same answer as the parse below.
        return source
    if _plain(_md.parse(source)):
        text = _INLINE_LINK.sub(lambda m: m[1] + site + m[2], source)
        return _REFERENCE.sub(lambda m: m[1] + site + m[2], text)
    return html_to_markdown(
        render_markdown(source),
        base_url=site + "/",
        heading_offset=-1,  # `#` for the page's <h2>: the levels the editor wrote
        keep_fragments=False,
        keep_titles=True,  # the editor's own titles, as in text returned as written
    )
