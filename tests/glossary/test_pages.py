"""The public reader pages: content, visibility of drafts, Polish ordering, structured data,
hostile content and constant query counts."""

import json
import re
from datetime import timedelta

import pytest
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone
from django.views.defaults import server_error

from glossary.models import Series, Status
from tests.factories import (
    make_article,
    make_category,
    make_draft_term,
    make_future_term,
    make_term,
)

pytestmark = pytest.mark.django_db

SITE_URL = "https://slownik.example"

# Names no anonymous page may ever show (each also has a distinctive slug).
SECRET_NAMES = ["Tajnyszkic", "Przyszłośćpojęcie", "Tajnyartykuł", "Przyszłyartykuł"]
SECRET_SLUGS = ["tajnyszkic", "przyszloscpojecie", "tajnyartykul", "przyszlyartykul"]


@pytest.fixture(autouse=True)
def _site_url(site_address):
    site_address(SITE_URL)


@pytest.fixture
def world():
    """Published content entangled with drafts and scheduled entries at every link type."""
    category = make_category("Sieci")
    api = make_term("API", short_definition="Interfejs programistyczny.", synonyms=["interfejs"])
    api.categories.add(category)
    cache = make_term("Pamięć podręczna", short_definition="Szybka kopia danych.")
    draft = make_draft_term("Tajnyszkic", short_definition="Nie do pokazania.")
    future = make_future_term("Przyszłośćpojęcie", short_definition="Jeszcze nie teraz.")
    api.related.add(cache, draft, future)
    article = make_article("Jak działa API", lead="Wprowadzenie do interfejsów.")
    article.terms.set([api, cache, draft, future])
    draft_article = make_article("Tajnyartykuł", status=Status.DRAFT, terms=[api])
    future_article = make_article(
        "Przyszłyartykuł", published_at=timezone.now() + timedelta(days=3), terms=[api]
    )
    return {
        "api": api,
        "cache": cache,
        "draft": draft,
        "future": future,
        "article": article,
        "draft_article": draft_article,
        "future_article": future_article,
        "category": category,
    }


def html(response) -> str:
    return response.content.decode()


def assert_no_secrets(text: str):
    for secret in SECRET_NAMES + SECRET_SLUGS:
        assert secret not in text


def jsonld_blocks(text: str) -> list[dict]:
    found = re.findall(r'<script type="application/ld\+json">(.*?)</script>', text, re.S)
    return [json.loads(block) for block in found]


# --- every page answers with its content ---------------------------------------------------


def test_home_shows_search_latest_articles_and_recent_terms(client, world):
    """The home page has a GET search form to /szukaj/, latest articles and updated terms."""
    response = client.get(reverse("glossary:home"))
    assert response.status_code == 200
    text = html(response)
    assert '<html lang="pl">' in text
    assert f'action="{reverse("glossary:search")}"' in text
    assert 'method="get"' in text
    assert "Jak działa API" in text
    assert world["cache"].get_absolute_url() in text


def test_index_lists_published_terms_under_letter_headings(client, world):
    """The A–Ż index groups published terms under letter headings with links to each term."""
    response = client.get(reverse("glossary:index"))
    assert response.status_code == 200
    text = html(response)
    assert 'id="litera-A"' in text
    assert 'id="litera-P"' in text
    assert world["api"].get_absolute_url() in text
    assert world["cache"].get_absolute_url() in text


def test_index_navigation_shows_every_polish_letter_and_disables_empty_ones(client, world):
    """The letter navigation lists all Polish letters; letters without terms are disabled."""
    text = html(client.get(reverse("glossary:index")))
    nav = text.split('class="letters"')[1].split("</nav>")[0]
    for letter in "AĄBCĆDEĘFGHIJKLŁMNŃOPRSŚTUWZŹŻ":
        assert f">{letter}<" in nav
    assert 'aria-disabled="true" title="Brak pojęć na tę literę">Ł<' in nav
    assert "?litera=A" in nav
    assert "?litera=%C5%81" not in nav  # no link to an empty letter


def test_index_letter_filter_shows_only_that_letter(client, world):
    """`?litera=P` narrows the index to terms filed under P."""
    text = html(client.get(reverse("glossary:index"), {"litera": "p"}))
    assert world["cache"].get_absolute_url() in text
    assert world["api"].get_absolute_url() not in text


def test_index_orders_terms_by_polish_alphabet(client):
    """Polish letters sort after their base letter: Cebula < Ćma < Lampa < Łańcuch < MCP."""
    for name in ["MCP", "Łańcuch", "Ćma", "Lampa", "Cebula", "Żaba", "Źródło", "Zegar", "Ósemka"]:
        make_term(name)
    text = html(client.get(reverse("glossary:index")))
    positions = [
        text.index(f">{name}</a>")
        for name in ["Cebula", "Ćma", "Lampa", "Łańcuch", "MCP", "Ósemka", "Zegar", "Źródło"]
    ]
    positions.append(text.index(">Żaba</a>"))
    assert positions == sorted(positions)
    assert text.index('id="litera-Ł"') < text.index(">Łańcuch</a>") < text.index('id="litera-M"')


def test_term_page_shows_definition_body_synonyms_categories_related_and_articles(client, world):
    """A term page shows its name, definition, body, synonyms, categories, links and articles."""
    api = world["api"]
    api.body = "Treść **pogrubiona**."
    api.save()
    response = client.get(api.get_absolute_url())
    assert response.status_code == 200
    text = html(response)
    assert "<h1" in text and ">API</h1>" in text
    assert "Interfejs programistyczny." in text
    assert "<strong>pogrubiona</strong>" in text
    assert "interfejs</span>" in text
    assert "Sieci" in text
    assert world["cache"].get_absolute_url() in text
    assert world["article"].get_absolute_url() in text


def test_term_page_has_absolute_canonical_link(client, world):
    """The canonical link is SITE_URL plus the term's get_absolute_url()."""
    api = world["api"]
    text = html(client.get(api.get_absolute_url()))
    assert f'<link rel="canonical" href="{SITE_URL}{api.get_absolute_url()}">' in text


def test_term_page_jsonld_is_a_defined_term_in_a_defined_term_set(client, world):
    """The term's JSON-LD parses and describes a schema.org DefinedTerm in a DefinedTermSet."""
    api = world["api"]
    [data] = jsonld_blocks(html(client.get(api.get_absolute_url())))
    assert data["@context"] == "https://schema.org"
    assert data["@type"] == "DefinedTerm"
    assert data["name"] == "API"
    assert data["description"] == "Interfejs programistyczny."
    assert data["url"] == f"{SITE_URL}{api.get_absolute_url()}"
    assert data["alternateName"] == ["interfejs"]
    assert data["inDefinedTermSet"]["@type"] == "DefinedTermSet"
    assert data["inDefinedTermSet"]["url"] == f"{SITE_URL}{reverse('glossary:index')}"


def test_articles_list_shows_published_articles_paginated(client):
    """The article list is paginated (10 per page) with links to older pages."""
    for i in range(12):
        make_article(f"Artykuł numer {i:02d}", published_at=timezone.now() - timedelta(hours=i))
    first = html(client.get(reverse("glossary:articles")))
    assert "Artykuł numer 00" in first and "Artykuł numer 09" in first
    assert "Artykuł numer 10" not in first
    assert "?strona=2" in first
    second = client.get(reverse("glossary:articles"), {"strona": 2})
    assert second.status_code == 200
    assert "Artykuł numer 11" in html(second)


def test_articles_list_bad_page_is_404_not_500(client):
    """A page number that is not a number or out of range is a 404."""
    assert client.get(reverse("glossary:articles"), {"strona": "abc"}).status_code == 404
    assert client.get(reverse("glossary:articles"), {"strona": 99}).status_code == 404


def test_article_page_shows_title_lead_author_date_body_and_terms(client, django_user_model):
    """An article page shows title, lead, author, date, body and "Pojęcia ze słownika"."""
    author = django_user_model.objects.create_user("ania", first_name="Anna", last_name="Nowak")
    term = make_term("Token")
    article = make_article(
        "Tokeny w praktyce", lead="Krótki wstęp.", body="Akapit *treści*.", author=author
    )
    article.terms.set([term])
    response = client.get(article.get_absolute_url())
    assert response.status_code == 200
    text = html(response)
    assert "Tokeny w praktyce</h1>" in text
    assert "Krótki wstęp." in text
    assert "Anna Nowak" in text
    assert "<time datetime=" in text
    assert "<em>treści</em>" in text
    assert ">Pojęcia ze słownika</h2>" in text
    assert term.get_absolute_url() in text
    assert f'<link rel="canonical" href="{SITE_URL}{article.get_absolute_url()}">' in text


def test_article_page_jsonld_is_a_schema_org_article(client, world):
    """The article's JSON-LD parses as a schema.org Article naming its published terms."""
    article = world["article"]
    [data] = jsonld_blocks(html(client.get(article.get_absolute_url())))
    assert data["@type"] == "Article"
    assert data["headline"] == "Jak działa API"
    assert data["url"] == f"{SITE_URL}{article.get_absolute_url()}"
    assert {t["name"] for t in data["about"]} == {"API", "Pamięć podręczna"}
    assert "datePublished" in data


def test_article_page_has_series_previous_and_next(client):
    """An article in a series links to its published neighbours; drafts are skipped."""
    series = Series.objects.create(name="Od zera", slug="od-zera")
    first = make_article("Część pierwsza", series=series, series_order=1)
    make_article("Część szkicowa", series=series, series_order=2, status=Status.DRAFT)
    middle = make_article("Część trzecia", series=series, series_order=3)
    last = make_article("Część czwarta", series=series, series_order=4)
    text = html(client.get(middle.get_absolute_url()))
    assert f'rel="prev" href="{first.get_absolute_url()}"' in text
    assert f'rel="next" href="{last.get_absolute_url()}"' in text
    assert "Część szkicowa" not in text


def test_unknown_term_and_article_are_404(client):
    """Slugs that do not exist give 404."""
    assert client.get(reverse("glossary:term", args=["nie-ma"])).status_code == 404
    assert client.get(reverse("glossary:article", args=["nie-ma"])).status_code == 404


# --- search -----------------------------------------------------------------------------------


def test_search_shows_matching_terms_and_articles(client, world):
    """A query that is not an exact name lists matching terms and articles."""
    response = client.get(reverse("glossary:search"), {"q": "interf"})
    assert response.status_code == 200
    text = html(response)
    assert world["api"].get_absolute_url() in text
    assert world["article"].get_absolute_url() in text


def test_search_exact_name_leads_with_a_card_for_the_term(client, world):
    """An exact term name (any case, diacritics folded) is shown first as a card linking to
    the term page, the other results below it (no redirect, issue 10)."""
    response = client.get(reverse("glossary:search"), {"q": "pamiec podreczna"})
    assert response.status_code == 200
    card = html(response).split('class="exact-match"', 1)[1].split("</section>", 1)[0]
    assert world["cache"].get_absolute_url() in card


def test_search_without_results_suggests_close_terms(client, world):
    """With no matches the page says so and offers "Czy chodziło Ci o …" suggestions (a
    query with one known word is no longer "no matches": it lists partial matches)."""
    response = client.get(reverse("glossary:search"), {"q": "pamięciowość kwiatowa"})
    assert response.status_code == 200
    text = html(response)
    assert "Nic nie znaleziono" in text
    assert "Czy chodziło Ci o" in text
    assert world["cache"].get_absolute_url() in text


def test_search_empty_query_shows_only_the_form(client, django_assert_num_queries):
    """An empty or blank query shows the form and runs no query."""
    with django_assert_num_queries(0):
        response = client.get(reverse("glossary:search"), {"q": "   "})
    assert response.status_code == 200
    assert 'name="q"' in html(response)
    assert "Nic nie znaleziono" not in html(response)


@pytest.mark.parametrize(
    "query",
    ["a" * 100_000, "\x00", "ab\x00cd", "<script>alert(1)</script>", "%' OR 1=1 --", "żółć " * 500],
)
def test_search_bad_input_never_fails(client, world, query):
    """Huge, NUL-containing or hostile queries give a normal page, never a 500."""
    response = client.get(reverse("glossary:search"), {"q": query})
    assert response.status_code == 200
    assert "<script>alert" not in html(response)


def test_search_echo_is_truncated(client):
    """A very long query is cut to 200 characters before it is searched or shown."""
    text = html(client.get(reverse("glossary:search"), {"q": "x" * 5000}))
    assert "x" * 200 in text
    assert "x" * 201 not in text


# --- drafts and scheduled entries never leak --------------------------------------------------


def test_home_hides_drafts(client, world):
    """The home page lists no draft or future term or article."""
    assert_no_secrets(html(client.get(reverse("glossary:home"))))


def test_index_hides_drafts(client, world):
    """The A–Ż index lists no draft or future term."""
    text = html(client.get(reverse("glossary:index")))
    assert_no_secrets(text)
    assert 'aria-disabled="true" title="Brak pojęć na tę literę">T<' in text


def test_term_page_hides_draft_related_terms_and_articles(client, world):
    """A published term related to drafts shows neither them nor draft articles using it."""
    text = html(client.get(world["api"].get_absolute_url()))
    assert_no_secrets(text)
    assert world["cache"].get_absolute_url() in text


def test_article_page_hides_draft_terms(client, world):
    """A published article linking draft and future terms lists only published ones."""
    text = html(client.get(world["article"].get_absolute_url()))
    assert_no_secrets(text)
    assert world["api"].get_absolute_url() in text


def test_articles_list_hides_drafts(client, world):
    """The article list shows no draft or future article."""
    text = html(client.get(reverse("glossary:articles")))
    assert_no_secrets(text)
    assert "Jak działa API" in text


@pytest.mark.parametrize("query", ["Tajnyszkic", "Tajnyartykuł", "Przyszłośćpojęcie", "Tajny"])
def test_search_hides_drafts(client, world, query):
    """Search neither finds, suggests nor redirects to draft or future entries."""
    response = client.get(reverse("glossary:search"), {"q": query})
    assert response.status_code == 200
    text = html(response)
    assert "Nic nie znaleziono" in text
    assert_no_secrets(text.replace(f"„{query}”", "").replace(f'value="{query}"', ""))


def test_sitemap_lists_only_published_entries(client, world):
    """sitemap.xml has absolute SITE_URL links to published terms and articles only."""
    response = client.get(reverse("glossary:sitemap"))
    assert response.status_code == 200
    text = html(response)
    assert f"<loc>{SITE_URL}{world['api'].get_absolute_url()}</loc>" in text
    assert f"<loc>{SITE_URL}{world['article'].get_absolute_url()}</loc>" in text
    assert_no_secrets(text)


def test_feed_lists_only_published_articles(client, world):
    """The Atom feed has published articles with absolute links and no drafts."""
    response = client.get(reverse("glossary:feed"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    text = html(response)
    assert f"{SITE_URL}{world['article'].get_absolute_url()}" in text
    assert_no_secrets(text)


def test_feed_answers_a_polling_reader_with_304_until_it_changes(client, world):
    """A feed reader polling with the ETag or the Last-Modified it was given gets 304 (no
    body) while the feed is the same, and the new feed once an article is published."""
    first = client.get(reverse("glossary:feed"))
    assert first["ETag"] and first["Last-Modified"]
    by_tag = client.get(reverse("glossary:feed"), HTTP_IF_NONE_MATCH=first["ETag"])
    by_date = client.get(reverse("glossary:feed"), HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert by_tag.status_code == by_date.status_code == 304 and by_tag.content == b""
    make_article("Nowy artykuł o strumieniach", lead="Świeży lead.")
    fresh = client.get(reverse("glossary:feed"), HTTP_IF_NONE_MATCH=first["ETag"])
    assert fresh.status_code == 200 and "Nowy artykuł o strumieniach" in html(fresh)


@pytest.mark.parametrize("key", ["draft", "future", "draft_article", "future_article"])
def test_drafts_are_404_for_anonymous_visitors(client, world, key):
    """Draft and future-dated terms and articles are 404 for anonymous visitors (the 404
    page's search box repeats the visitor's own address, nothing of the entry)."""
    response = client.get(world[key].get_absolute_url())
    assert response.status_code == 404
    assert_no_secrets(html(response).replace(f'value="{world[key].slug}"', ""))


def test_drafts_are_404_for_logged_in_non_staff(client, world, django_user_model):
    """Being logged in is not enough: only staff may preview drafts."""
    client.force_login(django_user_model.objects.create_user("czytelnik", password="x-secret-1"))
    assert client.get(world["draft"].get_absolute_url()).status_code == 404


@pytest.mark.parametrize("key", ["draft", "future", "draft_article", "future_article"])
def test_staff_see_drafts_with_a_banner(staff_client, world, key):
    """Staff open drafts at their normal URL and see a SZKIC banner (role=status, noindex)."""
    response = staff_client.get(world[key].get_absolute_url())
    assert response.status_code == 200
    text = html(response)
    assert 'class="draft-banner" role="status"' in text
    assert "SZKIC" in text
    assert '<meta name="robots" content="noindex">' in text


def test_staff_see_no_banner_on_published_entries(staff_client, world):
    """A published term shows no draft banner, even to staff, but an edit link."""
    text = html(staff_client.get(world["api"].get_absolute_url()))
    assert "draft-banner" not in text
    assert reverse("admin:glossary_term_change", args=[world["api"].pk]) in text


def test_anonymous_visitors_see_no_edit_link(client, world):
    """The admin edit link is for staff only."""
    assert "/admin/" not in html(client.get(world["api"].get_absolute_url()))
    assert "/admin/" not in html(client.get(world["article"].get_absolute_url()))


# --- hostile content --------------------------------------------------------------------------


def test_hostile_term_content_never_reaches_the_page(client):
    """Script tags, event handlers and javascript: links in a term never reach the HTML."""
    term = make_term(
        "Zły </script><script>alert(1)</script>",
        short_definition='Definicja <img src=x onerror="alert(2)">',
        synonyms=["<script>alert(3)</script>"],
        body=(
            "<script>alert(4)</script>\n\n<img src=x onerror=alert(5)>\n\n"
            '<a href="javascript:alert(6)">link</a> [md](javascript:alert(7))'
        ),
    )
    friend = make_term("Sąsiad")
    friend.related.add(term)
    for url in [term.get_absolute_url(), friend.get_absolute_url(), reverse("glossary:index")]:
        text = html(client.get(url)).lower()
        assert "<script>alert" not in text
        assert "<img src=x onerror" not in text
        assert 'onerror="' not in text and "onerror=alert" not in text
        assert not re.search(r"(href|src)\s*=\s*[\"']?\s*javascript:", text)


def test_jsonld_cannot_be_broken_out_of(client):
    """A term name containing </script> stays inside the JSON-LD string and parses back."""
    name = 'Atak </script><script>alert("x")</script><!--'
    term = make_term(name, short_definition="</script>")
    text = html(client.get(term.get_absolute_url()))
    [data] = jsonld_blocks(text)
    assert data["name"] == name
    assert data["description"] == "</script>"
    # The JSON-LD element is the only inline script (the others are the live-update files).
    assert len(re.findall(r"<script(?![^>]*\bsrc=)", text)) == 1


def test_hostile_article_content_never_reaches_the_page(client):
    """Article bodies are sanitized: no script, event handler or javascript: URL survives."""
    article = make_article(
        "Artykuł </script><script>alert(1)</script>",
        lead="<b onmouseover=alert(2)>lead</b>",
        body='<script>alert(3)</script><p onclick="alert(4)">x</p>[a](javascript:alert(5))',
    )
    text = html(client.get(article.get_absolute_url())).lower()
    assert "<script>alert" not in text
    assert "onclick=" not in text
    assert "<b onmouseover" not in text  # the plain-text lead is escaped, not rendered
    assert not re.search(r"(href|src)\s*=\s*[\"']?\s*javascript:", text)
    [data] = jsonld_blocks(html(client.get(article.get_absolute_url())))
    assert data["headline"].startswith("Artykuł </script>")


# --- error pages --------------------------------------------------------------------------------


def test_404_page_is_styled_and_polish(client):
    """Unknown URLs get the site's Polish 404 page with the stylesheet and a search form."""
    response = client.get("/slownik/nie-ma-takiego-pojecia/")
    assert response.status_code == 404
    text = html(response)
    assert '<html lang="pl">' in text
    assert "Nie znaleziono strony" in text
    assert "css/site.css" in text
    assert 'role="search"' in text


def test_500_page_needs_no_database_or_request_context(django_assert_num_queries):
    """The 500 page renders from a static template, in Polish, without any query."""
    request = RequestFactory().get("/")
    with django_assert_num_queries(0):
        response = server_error(request)
    assert response.status_code == 500
    text = html(response)
    assert '<html lang="pl">' in text
    assert "Błąd serwera" in text


# --- conditional GET ----------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["api", "article"])
def test_detail_pages_answer_conditional_get_with_304(client, world, key):
    """Term and article pages send an ETag and answer a matching If-None-Match with 304."""
    url = world[key].get_absolute_url()
    etag = client.get(url)["ETag"]
    assert client.get(url, headers={"if-none-match": etag}).status_code == 304


def test_etag_changes_when_a_related_term_changes(client, world):
    """The ETag follows the rendered page, so renaming a related term invalidates it."""
    url = world["api"].get_absolute_url()
    etag = client.get(url)["ETag"]
    world["cache"].name = "Pamięć cache"
    world["cache"].save()
    assert client.get(url)["ETag"] != etag


# --- constant query counts --------------------------------------------------------------------


def _grow(world, n):
    """Add `n` published terms related to API and used by the article, and `n` articles."""
    for i in range(n):
        term = make_term(f"Dodatkowe {i:02d}")
        world["api"].related.add(term)
        world["article"].terms.add(term)
        make_article(f"Dodatkowy artykuł {i:02d}", terms=[world["api"]])


PAGES = [
    ("home", lambda w: reverse("glossary:home"), 2),
    ("index", lambda w: reverse("glossary:index"), 1),
    # The content-state read of the term page cache, then the page's own 1 (views.term_view).
    ("term", lambda w: w["api"].get_absolute_url(), 1 + 1),
    ("articles", lambda w: reverse("glossary:articles"), 2),
    # The content-state read of the article page cache, then the page's own 1.
    ("article", lambda w: w["article"].get_absolute_url(), 1 + 1),
    ("search", lambda w: reverse("glossary:search") + "?q=interf", 2),
    ("search-suggest", lambda w: reverse("glossary:search") + "?q=pamieciowosc+kwiatowa", 3),
    ("search-exact", lambda w: reverse("glossary:search") + "?q=api", 2),
    # Terms, articles, categories, series: a count and a page each, but no series page when
    # the count is 0 (the pages section needs no query).
    ("sitemap", lambda w: reverse("glossary:sitemap"), 7),
    ("feed", lambda w: reverse("glossary:feed"), 1),
    # "Did you mean" for the address's last segment (glossary.search.suggest_terms).
    ("404", lambda w: "/nie-ma/", 1),
]


@pytest.mark.parametrize(("page", "url", "queries"), PAGES, ids=[p[0] for p in PAGES])
def test_anonymous_query_count_is_constant(
    client, world, django_assert_num_queries, page, url, queries
):
    """Each page runs a fixed number of queries (no session or user query for anonymous
    visitors), the same with 2 or 12 related terms and articles."""
    with django_assert_num_queries(queries):
        small = client.get(url(world))
    _grow(world, 10)
    with django_assert_num_queries(queries):
        large = client.get(url(world))
    assert small.status_code == large.status_code


@pytest.mark.parametrize(("key", "queries"), [("draft", 3), ("draft_article", 3), ("api", 3)])
def test_staff_query_count_is_constant(
    staff_client, world, django_assert_num_queries, key, queries
):
    """Staff previews add exactly the session and user lookups to the page's own queries."""
    url = world[key].get_absolute_url()
    with django_assert_num_queries(queries):
        staff_client.get(url)
    _grow(world, 10)
    with django_assert_num_queries(queries):
        staff_client.get(url)


def test_robots_txt_points_to_the_sitemap(client, db, settings):
    """/robots.txt keeps crawlers out of the admin and advertises the absolute sitemap URL,
    without touching the database."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    body = response.content.decode()
    assert "Disallow: /admin/" in body
    assert f"Sitemap: {settings.SITE_URL}/sitemap.xml" in body
    assert len(ctx.captured_queries) == 0
