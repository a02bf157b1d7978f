"""The search page and its suggestions (issue 10): an exact match as a card with the other
results below, highlights only on real matches, Polish plural forms of the counts, the
combobox markup hooks, and the compiled Polish catalogue."""

import gettext
import re
from pathlib import Path

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import ngettext

from glossary import search
from tests.factories import make_article, make_term

pytestmark = pytest.mark.django_db

LOCALE = Path(__file__).resolve().parents[2] / "glossary" / "locale" / "pl" / "LC_MESSAGES"


@pytest.fixture
def terms():
    return {
        "mcp": make_term("MCP", short_definition="Protokół łączący modele z narzędziami."),
        "serwer": make_term(
            "Serwer MCP",
            short_definition="Program z serii narzędzi, serwis dla klientów, jak każdy serwer.",
        ),
        "sse": make_term("SSE", short_definition="Strumień zdarzeń z serwera."),
        "ws": make_term("WebSocket", short_definition="Dwukierunkowy kanał, nie strumień SSE."),
    }


def test_exact_name_is_a_card_with_the_other_results_below(client, terms):
    """`?q=MCP` answers 200 with a card linking to the term, then the other matching terms and
    the articles about it, each listed once."""
    make_article("MCP w praktyce", lead="O MCP.")
    text = client.get(reverse("glossary:search"), {"q": "MCP"}).content.decode()
    card, rest = text.split('class="exact-match"', 1)[1].split("</section>", 1)
    assert terms["mcp"].get_absolute_url() in card
    assert terms["serwer"].get_absolute_url() in rest
    assert "MCP w praktyce" in rest
    assert rest.count(f'href="{terms["mcp"].get_absolute_url()}"') == 0


def test_highlights_mark_only_real_matches(client, terms):
    """`?q=serwr` (a typo of "serwer") marks "serwer" but not "serii" or "serwis"."""
    text = client.get(reverse("glossary:search"), {"q": "serwr"}).content.decode()
    assert "<mark>serwer</mark>" in text
    assert "<mark>serii</mark>" not in text and "<mark>serwis</mark>" not in text


def test_highlight_marks_inflected_forms_and_stays_escaped():
    """Inflected forms of a query word are marked, hostile HTML is escaped."""
    marked = search.highlight("Lista serwerów <b>MCP</b>", "serwer")
    assert marked == "Lista <mark>serwerów</mark> &lt;b&gt;MCP&lt;/b&gt;"


@pytest.mark.parametrize(
    ("count", "terms_text", "articles_text"),
    [
        (1, "1 pojęcie", "1 artykuł"),
        (2, "2 pojęcia", "2 artykuły"),
        (5, "5 pojęć", "5 artykułów"),
        (22, "22 pojęcia", "22 artykuły"),
        (25, "25 pojęć", "25 artykułów"),
    ],
)
def test_counts_use_polish_plural_forms(count, terms_text, articles_text):
    """Counts follow Polish plural rules through Django's translation machinery."""
    with translation.override("pl"):
        assert (
            ngettext("%(counter)s pojęcie", "%(counter)s pojęcia", count) % {"counter": count}
            == terms_text
        )
        assert (
            ngettext("%(counter)s artykuł", "%(counter)s artykuły", count) % {"counter": count}
            == articles_text
        )


def test_search_page_shows_plural_counts(client, terms):
    """The results line reads "2 pojęcia, 0 artykułów", not "pojęcia 2, artykuły 0"."""
    text = client.get(reverse("glossary:search"), {"q": "sse websocket"}).content.decode()
    assert "2 pojęcia, 0 artykułów" in text


def _po_entries(text: str) -> dict:
    """{msgid or (msgid, n): translation} of a .po file (the subset of the format we write:
    one-line strings: written with `msgcat --no-wrap`; plural forms as msgstr[n])."""
    entries, msgid = {}, None
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        value = value.strip()[1:-1].encode().decode("unicode_escape").encode("latin-1").decode()
        if key == "msgid":
            msgid = value
        elif key == "msgstr" and msgid:
            entries[msgid] = value
        elif key.startswith("msgstr[") and msgid:
            entries[(msgid, int(key[7:-1]))] = value
    return entries


def test_compiled_catalogue_matches_its_source():
    """The committed django.mo holds exactly the translations of django.po (`make messages`
    rebuilds it), so a fresh clone needs no gettext tools."""
    source = _po_entries((LOCALE / "django.po").read_text(encoding="utf-8"))
    with (LOCALE / "django.mo").open("rb") as handle:
        catalogue = gettext.GNUTranslations(handle)
    compiled = {key: value for key, value in catalogue._catalog.items() if key != ""}
    assert compiled == source
    assert "nplurals=4" in catalogue.info()["plural-forms"]  # Django's own Polish rule


def test_comparison_is_announced_and_both_terms_lead(client, terms):
    """A comparison names its two sides and lists both compared terms first."""
    response = client.get(reverse("glossary:search"), {"q": "różnica między sse a websocket"})
    text = response.content.decode()
    assert "Porównanie" in text
    listed = text.split('id="wyniki-pojecia"', 1)[1].split("</ul>", 1)[0]
    hrefs = re.findall(r'<li><a href="([^"]+)"', listed)
    assert set(hrefs[:2]) == {terms["sse"].get_absolute_url(), terms["ws"].get_absolute_url()}


def test_suggestions_are_ranked_as_the_engine_ranks(client, terms):
    """The suggestions endpoint returns the engine's list in its order, fuzzy matches and
    short definitions included, never cached for long."""
    response = client.get(reverse("glossary:search_suggest"), {"q": "serwr"})
    data = response.json()
    assert [item["slug"] for item in data] == [
        h.slug for h in search.term_search(query="serwr", limit=8)
    ]
    assert data[0]["definition"] == terms["serwer"].short_definition
    assert "max-age=30" in response["Cache-Control"]


def test_search_page_works_without_javascript(client, terms):
    """The search form is a plain GET form to /szukaj/: results come without any script."""
    text = client.get(reverse("glossary:home")).content.decode()
    assert f'action="{reverse("glossary:search")}"' in text and 'name="q"' in text
    assert 'role="combobox"' not in text  # added by the script, not required by the page


def test_completion_falls_back_to_the_engine(terms):
    """Argument completion offers slugs with the typed prefix; a value no slug starts with
    (inflected, mistyped, without diacritics) gets the engine's matches instead."""
    assert search.complete_term_slugs(prefix="web") == ["websocket"]
    assert search.complete_term_slugs(prefix="serwr")[0] == "serwer-mcp"
    assert search.complete_term_slugs(prefix="websokcet") == ["websocket"]
    assert search.complete_term_slugs(prefix="zz") == []


def test_admin_search_understands_questions(admin_client, terms):
    """The admin's term search goes through the same engine: a question finds its subject."""
    url = reverse("admin:glossary_term_changelist")
    text = admin_client.get(url, {"q": "czym jest websocket"}).content.decode()
    assert reverse("admin:glossary_term_change", args=[terms["ws"].pk]) in text
