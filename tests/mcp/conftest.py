"""Fixtures shared by the MCP tests."""

import pytest

from glossary.models import Series, Status
from tests.factories import (
    make_article,
    make_category,
    make_draft_term,
    make_future_term,
    make_term,
)


@pytest.fixture
def content(db):
    """A small glossary with published, draft and scheduled entries."""
    category = make_category("Protokoły", slug="protokoly")
    rpc = make_term("JSON-RPC", short_definition="Protokół zdalnych wywołań w JSON.")
    mcp = make_term(
        "MCP",
        short_definition="Model Context Protocol: jak agenci rozmawiają z narzędziami.",
        body="## Jak działa\n\nKlient wysyła żądania JSON-RPC do serwera.",
        synonyms=["Model Context Protocol"],
    )
    mcp.categories.add(category)
    mcp.related.add(rpc)
    sse = make_term("SSE", short_definition="Server-Sent Events.")
    draft = make_draft_term("Tajny szkic", short_definition="Nie do pokazania.")
    draft.related.add(mcp)
    future = make_future_term("Przyszłe pojęcie", short_definition="Jeszcze nie teraz.")
    series = Series.objects.create(name="MCP od podstaw", slug="mcp-od-podstaw")
    first = make_article(
        "Czym jest MCP", slug="czym-jest-mcp", lead="Wprowadzenie do MCP.",
        body="Tekst o **MCP**.", terms=[mcp, rpc], series=series, series_order=1,
    )  # fmt: skip
    second = make_article(
        "MCP w bajtach", slug="mcp-w-bajtach", lead="Wiadomości JSON-RPC.",
        terms=[mcp, draft], series=series, series_order=2,
    )  # fmt: skip
    draft_article = make_article(
        "Szkic artykułu", slug="szkic-artykulu", status=Status.DRAFT, terms=[mcp]
    )
    return type("Content", (), locals())
