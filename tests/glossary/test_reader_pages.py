"""Reader pages added for issue 15: categories, series, sharing tags, icons, the 404 page's
suggestions, the A–Z letter errors, honest "other names", bylines; constant query counts
and hostile content in every new rendering context."""

import json
import re
from html import unescape

import pytest
from django.urls import reverse

from glossary.models import Series, Status
from tests.factories import make_article, make_category, make_draft_term, make_term

pytestmark = pytest.mark.django_db
SITE_URL = "https://slownik.example"


@pytest.fixture(autouse=True)
def _site_url(site_address):
    site_address(SITE_URL)


@pytest.fixture
def world(django_user_model):
    author = django_user_model.objects.create_user("ewa", first_name="Ewa", last_name="Nowak")
    category = make_category("Transport", description="Jak wiadomości płyną.")
    sse = make_term("SSE", slug="sse", short_definition="Strumień zdarzeń.",
                    synonyms=["Server-Sent Events", "SSE-a", "EventSource"])  # fmt: skip
    sse.categories.add(category)
    draft = make_draft_term("Tajnyszkic", slug="tajnyszkic")
    draft.categories.add(category)
    series = Series.objects.create(name="Od podstaw", slug="od-podstaw", description="Kurs.")
    second = make_article("Część druga", slug="druga", series=series, series_order=2, author=author)
    first = make_article("Część pierwsza", slug="pierwsza", series=series, series_order=1)
    hidden = make_article("Tajnyartykul", slug="tajny", series=series, series_order=3,
                          status=Status.DRAFT)  # fmt: skip
    return SimpleWorld(category, sse, draft, series, first, second, hidden, author)


class SimpleWorld:
    def __init__(self, category, sse, draft, series, first, second, hidden, author):
        self.category, self.sse, self.draft, self.series = category, sse, draft, series
        self.first, self.second, self.hidden, self.author = first, second, hidden, author


def page(client, path, status=200):
    response = client.get(path)
    assert response.status_code == status, path
    return response.content.decode()


def meta(text: str, key: str) -> str:
    match = re.search(rf'<meta (?:property|name)="{re.escape(key)}" content="([^"]*)"', text)
    return unescape(match.group(1)) if match else None


def test_category_page_lists_its_published_terms(client, world):
    """/slownik/kategoria/<slug>/ shows the category and its published terms only."""
    text = page(client, reverse("glossary:category", args=["transport"]))
    assert "<h1>Transport</h1>" in text and world.sse.get_absolute_url() in text
    assert "Tajnyszkic" not in text
    page(client, reverse("glossary:category", args=["nie-ma"]), 404)


def test_series_page_lists_published_articles_in_order(client, world):
    """A series page lists its published articles by their number in the series."""
    text = page(client, reverse("glossary:series", args=["od-podstaw"]))
    assert text.index("Część pierwsza") < text.index("Część druga")
    assert 'value="1"' in text and "Tajnyartykul" not in text


def test_term_and_article_pages_link_their_category_and_series(client, world):
    """The term page links its categories; the article page and cards link the series."""
    assert f'href="{world.category.get_absolute_url()}"' in page(
        client, world.sse.get_absolute_url()
    )
    assert f'href="{world.series.get_absolute_url()}"' in page(
        client, world.first.get_absolute_url()
    )
    assert f'href="{world.series.get_absolute_url()}"' in page(client, reverse("glossary:articles"))


def test_sitemap_lists_categories_and_series_with_published_content(client, world):
    """Categories and series with published entries are in the sitemap; empty ones are not."""
    make_category("Pusta")
    text = page(client, reverse("glossary:sitemap"))
    assert f"{SITE_URL}/slownik/kategoria/transport/" in text
    assert f"{SITE_URL}/artykuly/seria/od-podstaw/" in text
    assert "kategoria/pusta/" not in text


@pytest.mark.parametrize(
    "path",
    [
        lambda w: reverse("glossary:home"),
        lambda w: reverse("glossary:index"),
        lambda w: w.sse.get_absolute_url(),
        lambda w: w.first.get_absolute_url(),
        lambda w: reverse("glossary:articles"),
        lambda w: w.category.get_absolute_url(),
        lambda w: w.series.get_absolute_url(),
        lambda w: reverse("glossary:search") + "?q=sse+x",
    ],
    ids=["home", "index", "term", "article", "articles", "category", "series", "search"],
)
def test_every_page_has_open_graph_and_twitter_tags(client, world, path):
    """Each page carries og:title/description/type/site_name/image and a Twitter card."""
    text = page(client, path(world))
    for key in ("og:title", "og:description", "og:type", "og:site_name", "og:image",
                "twitter:card", "twitter:title"):  # fmt: skip
        assert meta(text, key), key
    assert meta(text, "og:image").startswith(SITE_URL)


def test_open_graph_of_an_article_names_it_and_its_author(client, world):
    """An article's og:type is article, with its title, lead, date and author."""
    world.second.lead = 'Lead z "cudzysłowem" i <b>znacznikiem</b>.'
    world.second.save()
    text = page(client, world.second.get_absolute_url())
    assert meta(text, "og:type") == "article" and meta(text, "og:title") == "Część druga"
    assert meta(text, "og:description") == world.second.lead
    assert meta(text, "article:author") == "Ewa Nowak"
    assert '"cudzysłowem"' not in text.split("<body")[0].split('og:description" content=')[1][:80]


def test_hostile_names_cannot_break_out_of_meta_tags(client):
    """Quotes and tags in a term's name and definition are escaped in every meta tag."""
    term = make_term('"><script>alert(1)</script>', slug="atak",
                     short_definition='" onmouseover="alert(1)')  # fmt: skip
    text = page(client, term.get_absolute_url())
    head = text.split("</head>")[0]
    assert "<script>alert" not in head and 'onmouseover="alert' not in head
    assert meta(text, "og:title") == '"><script>alert(1)</script>'


def test_hostile_category_and_series_texts_are_escaped(client, world):
    """Names and descriptions of categories and series are text on their pages."""
    world.category.name, world.category.description = "<script>k()</script>", '"><img src=x>'
    world.category.save()
    world.series.name, world.series.description = "<script>s()</script>", "<b>opis</b>"
    world.series.save()
    for path in (world.category.get_absolute_url(), world.series.get_absolute_url()):
        text = page(client, path)
        assert "<script>k()" not in text and "<script>s()" not in text
        assert "<img src=x>" not in text and "<b>opis</b>" not in text


def test_article_byline_and_jsonld_author(client, world):
    """An article names its author in the byline and in its JSON-LD, and its series."""
    text = page(client, world.second.get_absolute_url())
    assert 'Autor: <span class="author">Ewa Nowak</span>' in text
    [data] = [
        json.loads(b)
        for b in re.findall(r'<script type="application/ld\+json">(.*?)</script>', text, re.S)
    ]
    assert data["author"] == {"@type": "Person", "name": "Ewa Nowak"}
    assert data["isPartOf"]["url"] == SITE_URL + world.series.get_absolute_url()


def test_favicon_icons_and_manifest(client, db):
    """Pages link a favicon, an Apple touch icon and the manifest; /favicon.ico redirects to
    the PNG; the manifest names the icons."""
    text = page(client, reverse("glossary:home"))
    assert 'rel="icon" href="/static/img/favicon.svg"' in text
    assert 'rel="apple-touch-icon"' in text and 'rel="manifest"' in text
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon-32.png")
    manifest = client.get(reverse("glossary:webmanifest"))
    assert manifest["Content-Type"] == "application/manifest+json"
    assert {icon["sizes"] for icon in manifest.json()["icons"]} >= {"192x192", "512x512"}


def test_term_page_shows_other_names_but_not_inflected_forms(client, world):
    """Readers see "Inne nazwy i skróty" without declined forms ("SSE-a"); search and
    linking still know them."""
    text = page(client, world.sse.get_absolute_url())
    assert "Inne nazwy i skróty" in text and "Server-Sent Events" in text
    assert "SSE-a" not in text and "Synonimy" not in text


def test_asked_as_phrases_are_never_shown_to_readers(client, world):
    """The phrases editors attached to a term ("pytano też jako") are for the search only:
    not on the term's page, its Markdown alternate, llms-full.txt or the A–Z index."""
    world.sse.asked_as = ["tajne pytanie czytelnika"]
    world.sse.save()
    paths = [world.sse.get_absolute_url(), "/slownik/sse.md", "/llms-full.txt", "/llms.txt",
             reverse("glossary:index")]  # fmt: skip
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        assert "tajne pytanie" not in response.content.decode(), path


def test_404_suggests_the_closest_terms_and_fills_the_search_box(client, world):
    """A mistyped term address offers "did you mean" links and puts the words in the box."""
    text = page(client, "/slownik/sse-x/", 404)
    assert f'href="{world.sse.get_absolute_url()}">SSE</a>' in text
    assert 'value="sse x"' in text


@pytest.mark.parametrize(
    "path", ["/slownik/%3Cscript%3Ealert(1)%3C/script%3E/", "/a%00b/", "/" + "x" * 3000 + "/"]
)
def test_404_with_hostile_addresses_is_still_a_404(client, db, path):
    """Tags, NUL bytes or a huge segment in the address: an escaped 404, never a 500."""
    text = page(client, path, 404)
    assert "<script>alert" not in text


def test_index_says_when_a_letter_has_no_terms(client, world):
    """?litera=Ł (no terms) says so and lists nothing instead of everything."""
    text = page(client, reverse("glossary:index") + "?litera=%C5%81")
    assert "Na literę Ł nie ma jeszcze pojęć." in text and world.sse.get_absolute_url() not in text


@pytest.mark.parametrize("value", ["ab", "1", "<b>", "%00", "żż"])
def test_index_rejects_what_is_no_letter(client, world, value):
    """A value that is not a letter of the index is a 404 that says so (escaped)."""
    text = page(client, reverse("glossary:index") + f"?litera={value}", 404)
    assert "nie jest literą indeksu" in text and "<b>„" not in text


def test_index_with_an_empty_letter_parameter_shows_everything(client, world):
    """?litera= (nothing chosen) is the whole index."""
    assert world.sse.get_absolute_url() in page(client, reverse("glossary:index") + "?litera=")


PAGES = [
    ("category", lambda w: w.category.get_absolute_url(), 2),
    ("series", lambda w: w.series.get_absolute_url(), 2),
    ("index-letter", lambda w: reverse("glossary:index") + "?litera=S", 1),
    ("index-bad-letter", lambda w: reverse("glossary:index") + "?litera=xx", 1),
    # glossary.search.suggest_terms for the two-word guess "sse x" (its own query budget).
    ("404", lambda w: "/slownik/sse-x/", 3),
    ("manifest", lambda w: reverse("glossary:webmanifest"), 0),
]


@pytest.mark.parametrize(("name", "path", "queries"), PAGES, ids=[p[0] for p in PAGES])
def test_new_pages_have_constant_query_counts(
    client, world, django_assert_num_queries, name, path, queries
):
    """Each new page costs the same number of queries with 1 or 11 entries in it."""
    with django_assert_num_queries(queries):
        client.get(path(world))
    for i in range(10):
        term = make_term(f"SSE dodatkowe {i}")
        term.categories.add(world.category)
        make_article(f"Część {i + 10}", series=world.series, series_order=i + 10)
    with django_assert_num_queries(queries):
        client.get(path(world))
