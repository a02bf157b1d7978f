"""glossary.markdown.markdown_for_agents: editor Markdown as an agent reads it (MCP tools,
resources, prompts): site paths absolute, no raw HTML, otherwise the text as written."""

import pytest

from glossary.markdown import markdown_for_agents

SITE = "https://s.example"

CASES = [
    ("plain text stays as written", "# Tytuł\n\n**MCP** i `kod`.", "# Tytuł\n\n**MCP** i `kod`."),
    ("site path made absolute", "[SSE](/slownik/sse/)", f"[SSE]({SITE}/slownik/sse/)"),
    ("reference definition too", "[x][r]\n\n[r]: /s/mcp/", f"[x][r]\n\n[r]: {SITE}/s/mcp/"),
    ("absolute link untouched", "[a](https://a.example/x)", "[a](https://a.example/x)"),
    ("protocol-relative is not a site path", "[a](//evil.example/)", "[a](https://evil.example/)"),
    ("path in code untouched", "`[a](/b)` i [c](/d)", f"`[a](/b)` i [c]({SITE}/d)"),
    ("inline tags dropped, text kept", "a <b>gruby</b> tekst", "a **gruby** tekst"),
    ("script and its content gone", "a <script>steal()</script> b", "a b"),
    ("event handler gone", '<a href="/x" onclick="y()">k</a>', f"[k]({SITE}/x)"),
    ("javascript: link gone", '<a href="javascript:steal()">k</a>', "k"),
    ("refused link syntax stays text", "[k](javascript:steal())", r"\[k\](javascript:steal())"),
    ("text that reads as a tag escaped", "a &lt;script&gt; <i>b</i>", r"a \<script\> *b*"),
    ("code keeps HTML", "<b>x</b>\n\n```html\n<p>k</p>\n```", "**x**\n\n```html\n<p>k</p>\n```"),
    ("headings keep their level", "# A\n\n<i>x</i>\n\n## B", "# A\n\n*x*\n\n## B"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "source", "expected"), CASES, ids=[c[0] for c in CASES])
def test_markdown_for_agents(case, source, expected):
    """Each case: what an agent gets for that editor text."""
    assert markdown_for_agents(source, site=SITE) == expected


# Texts that skip the parse (no `<`, bracket, `//`, `ftp:` or `mailto:`) next to near misses
# that must not: each must come out exactly as the full parse-and-check path gives it.
SHORTCUT = [
    "Zwykła proza: JSON-RPC, SSE i MCP.\n\nDrugi akapit, *kursywa* i `kod`.",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "~~skreślone~~ i przypis bez nawiasów",
    "adres example.com i poczta kto@example.com",
    "&lt;script&gt; jako encja",
    "adres http://example.com/x",
    "ftp.example.com i ftp:serwer",
    "MAILTO:kto@example.com",
    "[tekst]{.bez-linkow}",
    "przypis[^1]\n\n[^1]: treść",
]


@pytest.mark.parametrize("source", SHORTCUT)
def test_the_no_markup_shortcut_answers_as_the_parse_does(source, monkeypatch):
    """Text without markup characters is returned without parsing it (issue 16): the answer
    is the one the full path (parse, `_plain`, rewrite or rebuild) gives for the same text."""
    from glossary import markdown

    fast = markdown_for_agents(source, site=SITE)
    monkeypatch.setattr(markdown, "_maybe_markup", lambda text: True)
    assert fast == markdown_for_agents(source, site=SITE)


MARKUP_OR_NOT = [
    ("zwykły tekst, bez niczego", False),
    ("dwukropek: i nic więcej", False),
    ("<b>", True), ("[link]", True), ("a ] b", True), ("http://x", True),
    ("ftp:serwer", True), ("FTP:serwer", True), ("MAILTO:kto@example.com", True),
    ("mAiLtO:x", True), ("ftp bez dwukropka", False),
]  # fmt: skip


@pytest.mark.parametrize("text, expected", MARKUP_OR_NOT)
def test_the_markup_test_is_the_case_insensitive_pattern(text, expected):
    """`_maybe_markup` says what the pattern of `<`, `[`, `]`, `//`, `ftp:` or `mailto:`
    (ignoring case) says of the same text: the shortcut's safety rests on it."""
    from glossary import markdown

    pattern = markdown.re.compile(r"[<\[\]]|//|ftp:|mailto:", markdown.re.IGNORECASE)
    assert markdown._maybe_markup(text) is expected is bool(pattern.search(text))


def test_plain_text_fields_are_escaped_the_same_with_or_without_the_shortcut():
    """`markdown_text` answers a field that needs nothing without building a new string; on any
    text it gives exactly the full escaping: one line, single spaces, every Markdown special
    character backslash-escaped (generated text of letters, spaces of every kind, newlines and
    the special characters)."""
    import random
    import re

    from glossary.markdown import markdown_text

    special = re.compile(r"([\\`*_\[\]<>#|])")
    alphabet = "ab ą\n\t\xa0  [](){}<>#|*_`\\x\u2003\x1c\u200b"
    rng = random.Random(31)
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert markdown_text(text) == special.sub(r"\\\1", " ".join(text.split())), repr(text)
    assert markdown_text("[Kliknij](javascript:alert(1))") == r"\[Kliknij\](javascript:alert(1))"
    assert markdown_text(None) == ""
