"""Markdown that editors expect (markdown-it-py's own plugins), still sanitized by nh3."""

# ruff: noqa: E501 (case tables keep one case per line)

import pytest

from glossary.markdown import render_markdown

# (rule, Markdown, fragment the HTML must contain)
RENDERS = [
    ("a level-1 heading renders, one level down (the page owns h1)", "# Tytuł", "<h2>Tytuł</h2>"),
    ("a level-2 heading", "## Sekcja", "<h3>Sekcja</h3>"),
    ("h6 stays h6", "###### Mała", "<h6>Mała</h6>"),
    ("footnote reference", "Tekst[^1]\n\n[^1]: Przypis.", '<sup class="footnote-ref"><a href="#fn1" id="fnref1"'),
    ("footnote list", "Tekst[^1]\n\n[^1]: Przypis.", '<li id="fn1" class="footnote-item"><p>Przypis.'),
    ("bare URL becomes a link", "Zobacz https://example.com/a?b=1.", '<a href="https://example.com/a?b=1" rel="noopener noreferrer">https://example.com/a?b=1</a>'),
    ("tables", "| a | b |\n|:-|-:|\n| 1 | 2 |", '<td style="text-align:right">2</td>'),
    ("code with a language class", "```python\nprint(1)\n```", '<pre><code class="language-python">print(1)'),
    ("strikethrough", "~~stare~~", "<s>stare</s>"),
    ("an inline passage without auto-links", "[MCP]{.bez-linkow}", '<span class="bez-linkow">MCP</span>'),
    ("a block without auto-links", "::: bez-linkow\nTekst\n:::", '<div class="bez-linkow">\n<p>Tekst</p>'),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "source", "fragment"), RENDERS, ids=[r[0] for r in RENDERS])
def test_markdown_renders(rule, source, fragment):
    """Each Markdown feature editors use renders as expected."""
    assert fragment in render_markdown(source)


HOSTILE = [
    ("script tag", "<script>alert(1)</script>", "<script"),
    ("event handler", '<p onclick="alert(1)">x</p>', "onclick"),
    ("javascript link", "[x](javascript:alert(1))", 'href="javascript:'),
    ("javascript in raw HTML link", '<a href="javascript:alert(1)">x</a>', "javascript:"),
    ("data URL image", "![x](data:text/html;base64,PHNjcmlwdD4=)", 'src="data:'),
    ("attrs plugin: only the class is allowed", "[x]{onclick=alert(1)}", "<span"),
    ("attrs plugin: no foreign class", "[x]{.evil}", 'class="evil"'),
    ("an editor's id cannot clobber page elements", '<a id="tresc" href="#">x</a>', 'id="tresc"'),
    ("style beyond alignment", '<td style="background:url(x)">x</td>', "background"),
    ("code class injection", '```x" onmouseover="alert(1)\ny\n```', "onmouseover"),
    ("iframe", '<iframe src="https://evil.example"></iframe>', "<iframe"),
    ("form", '<form action="https://evil.example"><input></form>', "<form"),
    ("container with a script", "::: bez-linkow\n<script>x</script>\n:::", "<script"),
    ("footnote label with HTML", "a[^<b>]\n\n[^<b>]: <img src=x onerror=alert(1)>", "onerror"),
    ("style element", "<style>body{display:none}</style>", "<style"),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "source", "forbidden"), HOSTILE, ids=[r[0] for r in HOSTILE])
def test_hostile_markdown_is_sanitized(rule, source, forbidden):
    """Whatever an editor types, nothing executable or page-clobbering survives."""
    assert forbidden not in render_markdown(source)


# (rule, Markdown, what the HTML must hold, what it must not)
ADDRESSES = [
    ("an abbreviation with dots is a word", "Protokoły m.in. HTTP.", "m.in. HTTP", "<a"),
    ("a bare domain is a word", "Np. example.com i slownik.pl.", "example.com i slownik.pl", "<a"),
    ("a bare e-mail address is a word", "Pisz: ewa@slownik.pl.", "ewa@slownik.pl", "<a"),
    ("www. written out is an address", "Zobacz www.example.com.", '<a href="http://www.example.com"', None),
    ("a scheme is an address", "Zobacz https://m.in/x.", '<a href="https://m.in/x"', None),
    ("mailto: written out is an address", "mailto:ewa@slownik.pl", '<a href="mailto:ewa@slownik.pl"', None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "source", "held", "forbidden"), ADDRESSES, ids=[r[0] for r in ADDRESSES]
)
def test_only_written_addresses_become_links(rule, source, held, forbidden):
    """Bare words with a dot ("m.in.", "example.com") are not addresses: linkify links only
    what has a scheme or `www.` written out."""
    html = render_markdown(source)
    assert held in html
    if forbidden:
        assert forbidden not in html
