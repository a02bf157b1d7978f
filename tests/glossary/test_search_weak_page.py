"""The search page tells a reader a confident answer from a guess:
"Czy chodziło o: <corrected query>?" as a link that searches it, a visible note when the
terms are only the closest ones, and a "słabe dopasowanie" label on each guess, over the demo
glossary; everything the query or its correction holds is escaped."""

from dataclasses import replace

import pytest
from django.core.management import call_command
from django.urls import reverse

from glossary import search

NOTE = "Nie znaleźliśmy dokładnego dopasowania — oto najbliższe pojęcia."
LABEL = '<span class="weak-label">słabe dopasowanie</span>'


@pytest.fixture
def demo(db):
    call_command("load_demo", verbosity=0)


def _page(client, query) -> str:
    response = client.get(reverse("glossary:search"), {"q": query})
    assert response.status_code == 200
    return response.content.decode()


def _terms(text: str) -> list[str]:
    section = text.split('id="wyniki-pojecia"', 1)[1].split("</section>", 1)[0]
    return section.split("<li>")[1:]


def test_a_confident_answer_has_no_note_and_no_did_you_mean(client, demo):
    """A query the engine matches well shows neither the weak note nor "Czy chodziło o"."""
    text = _page(client, "mcp")
    assert NOTE not in text and "Czy chodziło o:" not in text
    assert 'class="exact-match"' in text


def test_a_typo_beside_a_correct_word_offers_the_corrected_search(client, demo):
    """ "serwr mcp": "Czy chodziło o: serwer mcp?" links to the search for the corrected
    query; the answer is confident (no note), its partial matches are labelled weak."""
    text = _page(client, "serwr mcp")
    link = f'<a href="{reverse("glossary:search")}?q=serwer%20mcp">serwer mcp</a>'
    assert f'<p class="did-you-mean">Czy chodziło o: {link}?</p>' in text
    assert NOTE not in text
    first, *rest = _terms(text)
    assert "/slownik/serwer-mcp/" in first and LABEL not in first
    assert rest and all(LABEL in item for item in rest)


def test_a_weak_answer_says_so_and_labels_every_guess(client, demo):
    """When even the best term matches only some words, the page says so above the terms and
    labels each of them "słabe dopasowanie"; the typo still gets "Czy chodziło o"."""
    text = _page(client, "halucynajca modelu kwiatowego")
    assert f'<p class="weak-note">{NOTE}</p>' in text
    items = _terms(text)
    assert "/slownik/halucynacja/" in items[0]
    assert all(LABEL in item for item in items)
    assert '?q=halucynacja%20modelu%20kwiatowego">halucynacja modelu kwiatowego</a>?' in text


def test_a_nonsense_query_with_words_still_offers_the_closest_terms(client, demo):
    """Never empty: when no word matches, the page says nothing was found and offers the
    closest terms."""
    text = _page(client, "blorf serwerowość")
    assert "Nic nie znaleziono" in text and "Czy chodziło Ci o" in text
    assert "/slownik/serwer-mcp/" in text


HOSTILE = '"><script>alert(1)</script>&q=x ąę'


def test_a_hostile_correction_is_escaped_in_the_link_and_the_text(client, demo, monkeypatch):
    """Whatever the corrected query holds, its link is percent-encoded (one `q` parameter,
    no way out of the attribute) and its text is HTML-escaped."""
    engine = search.search

    def corrected(*, query, limit=20):
        return replace(engine(query=query, limit=limit), did_you_mean=HOSTILE)

    monkeypatch.setattr(search, "search", corrected)
    text = _page(client, "serwr mcp")
    assert "<script>alert" not in text
    href = "?q=%22%3E%3Cscript%3Ealert%281%29%3C%2Fscript%3E%26q%3Dx%20%C4%85%C4%99"
    shown = "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;q=x ąę"
    assert f'{href}">{shown}</a>?' in text


@pytest.mark.parametrize("query", ["serwr mcp", "halucynajca modelu kwiatowego"])
def test_marking_and_correcting_cost_no_query(client, demo, django_assert_num_queries, query):
    """The page's two searches (terms, articles) are all it runs: the reading of the answer
    costs no query."""
    _page(client, query)  # the engine's planner statistics read
    with django_assert_num_queries(2):
        _page(client, query)
