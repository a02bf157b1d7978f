"""glossary.markdown.html_to_markdown: the one HTML→Markdown converter behind every text an
agent reads (Markdown alternates, /llms-full.txt, MCP answers), and the options its callers
choose (glossary/llms.py: defaults; markdown_for_agents: no fragments, titles kept, -1)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from glossary.markdown import html_to_markdown

PAGE = "https://s.example/slownik/sse/"
FOOTNOTE = '<p>a<sup class="footnote-ref"><a href="#fn1" id="fnref1">[1]</a></sup></p>'
AUTO_LINK = '<p><a href="/slownik/mcp/" title="Model Context Protocol.">MCP</a></p>'

CASES = [
    ("site path and page-relative link absolute", '<p><a href="/x">k</a> <a href="y/">w</a></p>',
     {}, "[k](https://s.example/x) [w](https://s.example/slownik/sse/y/)"),
    ("absolute and mailto links untouched",
     '<p><a href="mailto:a@b.pl">a</a> <a href="https://a.example/">x</a></p>',
     {}, "[a](mailto:a@b.pl) [x](https://a.example/)"),
    ("image absolute", '<p><img src="/static/a.png" alt="A"></p>',
     {}, "![A](https://s.example/static/a.png)"),
    ("fragment points into the page", FOOTNOTE, {}, r"a[\[1\]](https://s.example/slownik/sse/#fn1)"),
    ("fragment dropped to its text", FOOTNOTE, {"keep_fragments": False}, r"a\[1\]"),
    ("auto-link title removed", AUTO_LINK, {}, "[MCP](https://s.example/slownik/mcp/)"),
    ("title kept when asked", AUTO_LINK, {"keep_titles": True},
     '[MCP](https://s.example/slownik/mcp/ "Model Context Protocol.")'),
    ("headings as on the page", "<h2>A</h2><h6>F</h6>", {}, "## A\n\n###### F"),
    ("headings moved down, h6 at most", "<h2>A</h2><h6>F</h6>", {"heading_offset": 2},
     "#### A\n\n###### F"),
    ("headings moved up, h1 at least", "<h2>A</h2><h3>B</h3>", {"heading_offset": -2},
     "# A\n\n# B"),
    ("code language from <code>",
     '<pre><code class="language-json">{"a": "&lt;b&gt;"}</code></pre>',
     {}, '```json\n{"a": "<b>"}\n```'),
    ("code language from <pre>", '<pre class="language-py"><code>x = 1</code></pre>',
     {}, "```py\nx = 1\n```"),
    ("code without a language", "<pre><code>x</code></pre>", {}, "```\nx\n```"),
    ("text never reads as a tag, link, entity or emphasis",
     "<p>&lt;b&gt; [x](javascript:y) &amp;lt; _a_ *b* a|b `c`</p>",
     {}, r"\<b\> \[x\](javascript:y) \&lt; \_a\_ \*b\* a\|b \`c\`"),
    ("text never starts a block",
     "<p># nie</p><p>1. nie</p><p>- nie</p><p>&gt; nie</p>",
     {}, "\\# nie\n\n1\\. nie\n\n\\- nie\n\n\\> nie"),
    ("tags without Markdown give their text",
     '<p>a<span class="bez-linkow">b</span><abbr title="t">c</abbr></p>', {}, "abc"),
    ("nothing for nothing", "", {}, ""),
]  # fmt: skip


@pytest.mark.parametrize(("case", "html", "options", "expected"), CASES, ids=[c[0] for c in CASES])
def test_html_to_markdown(case, html, options, expected):
    """Each case: the Markdown for that sanitized HTML, on the page at PAGE."""
    assert html_to_markdown(html, base_url=PAGE, **options) == expected


def test_importing_the_models_does_not_import_markdownify():
    """markdownify (BeautifulSoup, ~0.15 s) loads on the first conversion, not with the models
    every process imports (a stdio MCP server, every management command)."""
    code = (
        "import sys, django; django.setup(); import glossary.models, glossary.markdown; "
        "assert 'markdownify' not in sys.modules and 'bs4' not in sys.modules, 'imported'"
    )
    # Development settings (the suite's DEBUG/SECRET_KEY may be others); no database is read.
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY")}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", DEBUG="1")
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True)
    assert result.returncode == 0, result.stderr.decode()
