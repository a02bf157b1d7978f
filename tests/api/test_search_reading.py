"""WordPress's /search never answers a search with words with nothing, and says how sure it is:
every item is `weak` or not, `X-WP-Search-Weak` says whether the
answer is a guess, and `X-WP-Search-Did-You-Mean` carries the corrected query as an RFC 8187
ext-value (`UTF-8''` and percent-encoded UTF-8), over the demo glossary."""

from dataclasses import replace
from urllib.parse import quote, unquote

import pytest
from django.core.management import call_command

from api import schema
from glossary import search, selectors
from tests.api.conftest import API

WEAK, MEANT = "X-WP-Search-Weak", "X-WP-Search-Did-You-Mean"


@pytest.fixture
def demo(db):
    call_command("load_demo", verbosity=0)


def _search(client, **params):
    response = client.get(f"{API}/search", params)
    assert response.status_code == 200, response.content[:300]
    return response


def test_a_confident_answer_says_so(client, demo):
    """A query the engine matches well: `X-WP-Search-Weak: 0`, no did-you-mean header, and
    the best item is not weak."""
    response = _search(client, search="mcp")
    assert response[WEAK] == "0" and MEANT not in response
    items = response.json()
    assert items[0]["slug"] == "mcp" and items[0]["weak"] is False


@pytest.mark.parametrize(
    ("query", "meant", "first"),
    [("serwr mcp", "serwer mcp", "serwer-mcp"), ("halucynajca modelu", "halucynacja modelu",
                                                 "halucynacja")],
)  # fmt: skip
def test_a_typo_beside_a_correct_word_gets_did_you_mean(client, demo, query, meant, first):
    """A typo next to a correct word: the corrected query in `X-WP-Search-Did-You-Mean` as an
    RFC 8187 ext-value, the item it found first confident, the partial ones after it weak."""
    response = _search(client, search=query)
    assert response[MEANT] == "UTF-8''" + quote(meant, safe="")
    assert unquote(response[MEANT].removeprefix("UTF-8''")) == meant
    first_item, *rest = response.json()
    assert first_item["slug"] == first and first_item["weak"] is False
    assert response[WEAK] == "0" and rest and all(item["weak"] for item in rest)


@pytest.mark.parametrize("kind", ["term", "article"])
def test_a_nonsense_query_with_words_gets_weak_candidates(client, demo, kind):
    """Never empty: when no word matches, /search lists the closest entries (terms, or the
    articles about them), every one `weak`, with `X-WP-Search-Weak: 1`."""
    response = _search(client, search="blorf serwerowość", type=kind)
    items = response.json()
    assert items and all(item["weak"] for item in items)
    assert response[WEAK] == "1"
    assert int(response["X-WP-Total"]) == len(items)


def test_without_a_search_there_is_no_reading(client, demo):
    """No `search`: nothing was read, so neither header is sent."""
    response = _search(client)
    assert WEAK not in response and MEANT not in response


HOSTILE = "serwr mcp\r\nX-Evil: 1\r\n\r\n<script>alert(1)</script> ąę"


def test_a_hostile_did_you_mean_cannot_inject_a_header(client, demo, monkeypatch):
    """Whatever the corrected query holds (CR, LF, a header of its own, markup, non-ASCII),
    the header is one ASCII ext-value: percent-encoded, decoding back to the text."""
    find_terms = search.find_terms

    def corrected(*, query, limit=10):
        return replace(find_terms(query=query, limit=limit), did_you_mean=HOSTILE)

    monkeypatch.setattr(search, "find_terms", corrected)
    response = _search(client, search="serwr mcp")
    value = response[MEANT]
    assert value.isascii() and "\r" not in value and "\n" not in value and " " not in value
    assert "X-Evil" not in response and unquote(value.removeprefix("UTF-8''")) == HOSTILE


def test_the_headers_are_documented_and_exposed(client, demo):
    """The OpenAPI document describes both headers on /search's answer, OPTIONS describes
    them in the `search` argument, and CORS lets a browser script read them."""
    doc = schema.openapi()
    headers = doc["paths"][f"{API}/search"]["get"]["responses"]["200"]["headers"]
    assert {WEAK, MEANT} <= set(headers) and "RFC 8187" in headers[MEANT]["description"]
    options = client.options(f"{API}/search").json()
    assert "RFC 8187" in options["endpoints"][0]["args"]["search"]["description"]
    exposed = _search(client, search="mcp")["Access-Control-Expose-Headers"]
    assert WEAK in exposed and MEANT in exposed


@pytest.mark.parametrize(
    ("params", "queries"),
    [
        ({"search": "serwr mcp"}, 2),  # the content state, the engine
        ({"search": "blorf serwerowość"}, 3),  # the closest names too
        ({"search": "serwr mcp", "type": "article"}, 2),
    ],
)
def test_reading_the_answer_costs_no_query(
    client, demo, django_assert_num_queries, params, queries
):
    """Marking and correcting cost nothing beyond the search: the content state and the
    engine's statement, one more when it falls back to the closest names."""
    _search(client, **params)  # the engine's planner statistics read
    selectors.content_state()
    with django_assert_num_queries(queries):
        _search(client, **params)
