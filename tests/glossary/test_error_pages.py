"""The error pages a reader can meet: 404 (with "did you mean"), 500 and 503."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db import OperationalError
from django.test import RequestFactory

from glossary.views import server_error
from tests.factories import make_article, make_term

pytestmark = pytest.mark.django_db

TEMPLATES = Path(settings.BASE_DIR) / "templates"
# Anything of Django's template language that reaches the reader is a template bug.
TEMPLATE_SYNTAX = re.compile(r"\{#|#\}|\{%|%\}|\{\{|\}\}")


def _rendered_500():
    try:
        raise ValueError("boom")
    except ValueError:
        return server_error(RequestFactory().get("/"))


def _rendered_503():
    try:
        raise OperationalError("the database is restarting")
    except OperationalError:
        return server_error(RequestFactory().get("/"))


@pytest.fixture
def terms(db):
    return {
        "mcp": make_term("MCP", short_definition="Model Context Protocol."),
        "sse": make_term("SSE", short_definition="Server-Sent Events."),
    }


def test_every_error_page_shows_no_template_syntax(client, terms):
    """404, 500 and 503 render as pages: no template comment, tag or variable syntax reaches
    the reader (a `{# #}` comment cannot span lines in Django; it is printed as text)."""
    pages = {
        "404": client.get("/nie-ma-takiej-strony/"),
        "404-term": client.get("/slownik/mpc/"),
        "404-article": client.get("/artykuly/nie-ma/"),
        "500": _rendered_500(),
        "503": _rendered_503(),
    }
    assert {name: r.status_code for name, r in pages.items()} == {
        "404": 404,
        "404-term": 404,
        "404-article": 404,
        "500": 500,
        "503": 503,
    }
    for name, response in pages.items():
        text = response.content.decode()
        assert not TEMPLATE_SYNTAX.search(text), (name, TEMPLATE_SYNTAX.search(text))
        assert "Self-contained" not in text, name


def test_no_template_comment_spans_lines():
    """Every `{# … #}` comment in the templates closes on its own line: Django prints a
    comment that spans lines as text (use `{% comment %}` for more than one line)."""
    for path in TEMPLATES.rglob("*.html"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for opened in re.finditer(r"\{#", line):
                assert "#}" in line[opened.end() :], f"{path}:{number}"


@pytest.mark.parametrize("debug", [False, True], ids=["production", "make-run"])
def test_404_for_a_mistyped_term_address_links_the_closest_term(client, settings, terms, debug):
    """A term address with a typo (/slownik/mpc/) answers 404 with a link to the term it most
    likely meant, in production and under `make run` (DEBUG on) alike."""
    settings.DEBUG = debug
    response = client.get("/slownik/mpc/")
    assert response.status_code == 404
    text = response.content.decode()
    assert "Czy chodziło Ci o" in text
    assert f'<a href="{terms["mcp"].get_absolute_url()}">MCP</a>' in text
    assert "Pod tym adresem nie ma pojęcia" in text


def test_404_for_a_mistyped_term_address_is_not_kept_as_the_page(client, terms):
    """A missing term answers 404 each time, and publishing it makes the address work: the
    404 is never kept as the term's page."""
    assert client.get("/slownik/nowe/").status_code == 404
    assert client.get("/slownik/nowe/").status_code == 404
    make_term("Nowe")
    assert client.get("/slownik/nowe/").status_code == 200


def test_404_for_an_article_speaks_of_articles_and_links_the_closest(client, terms):
    """A mistyped article address says an article is missing (not a term) and links the
    article it most likely meant."""
    article = make_article("Czym jest MCP", terms=[terms["mcp"]])
    response = client.get("/artykuly/czym-jest-mpc/")
    assert response.status_code == 404
    text = response.content.decode()
    assert "Pod tym adresem nie ma artykułu" in text
    assert "Pojęcie" not in text
    assert f'<a href="{article.get_absolute_url()}">Czym jest MCP</a>' in text
