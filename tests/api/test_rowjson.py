"""A readers' list gets its objects built by the database (api/rowjson.py, on PostgreSQL and
SQLite alike): the same bytes the serializers build from the row in Python, for every field,
edge and shape. Both forms are read from one field table (api/fields.py)."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from api import conditional, queries, rowjson
from glossary.models import Article, Series, Term
from tests.factories import (
    make_article,
    make_category,
    make_draft_term,
    make_future_term,
    make_term,
)

from .conftest import API

pytestmark = [pytest.mark.django_db]
POSTGRESQL_ONLY = pytest.mark.skipif(
    "connection.vendor != 'postgresql'", reason="PostgreSQL's one-row pages"
)
# What only the database's form of an object puts in a statement's text (api/rowjson.py:
# `_WithLinks`), on either database.
BUILT = ',"_links":'


def _built(queries) -> list[bool]:
    return [BUILT in q["sql"] for q in queries]


HOSTILE = [
    '<script>alert("x")</script> & co',
    "Cudzysłów \" i \\ ukośnik, 'apostrof'",
    "Zażółć gęślą jaźń 🚀 \u2028 \u00a0",
    "Sterujące \x01\x1f\t\n koniec",
    "&amp; już &lt;encja&gt;",
]
# Europe/Warsaw: the autumn hour that happens twice, the spring one that never does, a
# second's last microsecond, a year below 1000 (padded to four digits by both formats).
DATES = [
    datetime(2025, 10, 26, 0, 30, tzinfo=UTC),
    datetime(2025, 10, 26, 1, 30, tzinfo=UTC),
    datetime(2026, 3, 29, 1, 0, 0, 999_999, tzinfo=UTC),
    datetime(2024, 12, 31, 23, 59, 59, 999_999, tzinfo=UTC),
    datetime(999, 6, 1, 12, 0, tzinfo=UTC),
]


@pytest.fixture
def corpus(db):
    """Terms and articles whose every field is an edge for one of the two forms."""
    # Code point order is not any locale's: "B" < "Z" < "a" < "ą".
    categories = [make_category(name, slug=f"k{i}") for i, name in enumerate(("ą", "Z", "a", "B"))]
    terms = []
    for i, (text, when) in enumerate(zip(HOSTILE, DATES, strict=True)):
        term = make_term(
            f"{text} {i}",
            slug=f"pojecie-{i}",
            short_definition=text,
            body=f"Treść {i}",
            synonyms=[text, f"syn {i}"] if i % 3 else [],
            english_name=text if i % 2 else "",
            english_definition=f"{text} (en)",
            asked_as=[text, f"pytanie {i}"],
            published_at=when,
        )
        term.categories.set(categories[: i % 5])
        terms.append(term)
    hidden = [make_draft_term("Szkic"), make_future_term("Przyszłe")]
    for term in terms:
        term.related.set([t for t in terms if t != term][:3] + hidden)
    Term.objects.filter(pk=terms[0].pk).update(updated_at=DATES[3])
    series = Series.objects.create(name="Seria", slug="seria")
    for i, (text, when) in enumerate(zip(HOSTILE, DATES, strict=True)):
        make_article(
            f"{text} {i}", slug=f"artykul-{i}", lead="" if i % 2 else text,
            terms=[*terms[i:], *hidden], published_at=when,
            series=series if i % 2 else None, series_order=i if i % 2 else None,
        )  # fmt: skip
    return terms


SHAPES = [
    "/terms",
    "/terms?per_page=3&page=2",
    "/terms?context=embed",
    "/terms?_fields=id,title.rendered,related,_links.self",
    "/terms?orderby=id&order=desc&_fields=id,_links",
    "/terms?slug=pojecie-1,pojecie-3",
    "/terms?search=syn&per_page=2",
    "/terms?search=syn&per_page=2&page=2",
    "/terms?search=syn&_fields=id,link,_links",
    "/terms?_embed",
    "/terms?_embed=related,webflux:articles&per_page=3&page=2",
    "/terms?_embed=nothing-known",
    "/terms?search=syn&_embed=wp:term",
    "/terms?context=embed&_embed&_fields=id,_embedded",
    "/articles",
    "/articles?_embed",
    "/articles?_embed=webflux:terms&per_page=2&page=2",
    "/articles?context=embed&per_page=2",
    "/articles?_fields=id,terms,series,series_order,date,modified_gmt",
]


def _bytes(client, path: str) -> bytes:
    return _answer(client, path)[0]


def _answer(client, path: str) -> tuple[bytes, dict]:
    response = client.get(API + path)
    assert response.status_code == 200, response.content[:300]
    return response.content, dict(response.headers)


@pytest.mark.parametrize("path", SHAPES)
def test_the_database_builds_the_serializers_bytes(client, corpus, monkeypatch, path):
    """Every shape a readers' list takes on this path answers byte for byte what the
    serializers build from the row: escaped titles and excerpts, control characters, dates
    in site time and UTC truncated to the second (DST, year 999), synonyms, link ids in code
    point order with drafts and future entries left out, and the statement really was the
    database's form (so that the comparison compares two forms), with the same headers."""
    # Last-Modified is sent once the second the content state was first seen has passed
    # (api/conditional.py): a state seen long ago, so that both answers carry it.
    monkeypatch.setattr(conditional, "first_seen", lambda state: 0.0)
    _bytes(client, path)  # the search's planner statistics read, the walked ids known
    with CaptureQueriesContext(connection) as ctx:
        built, built_headers = _answer(client, path)
    assert any(_built(ctx.captured_queries))
    one_statement = connection.vendor == "postgresql" and "_fields" not in path
    if "search=" in path and one_statement:  # the search and its page: one statement
        assert [q["sql"].startswith("WITH ranked ") for q in ctx.captured_queries] == [True]
    monkeypatch.setattr(rowjson, "applies", lambda model, params: False)
    queries._COMPILED.clear()
    try:
        with CaptureQueriesContext(connection) as ctx:
            python, python_headers = _answer(client, path)
        assert not any(_built(ctx.captured_queries))
    finally:
        queries._COMPILED.clear()
    assert built == python
    assert built_headers["Content-Type"] == "application/json; charset=utf-8"
    assert built_headers["Last-Modified"] == "Thu, 01 Jan 1970 00:00:00 GMT"
    assert _sorted_csp(built_headers) == _sorted_csp(python_headers)


def _sorted_csp(headers: dict) -> dict:
    """The headers, the CSP's directives sorted (django-csp's order is a set's)."""
    csp = headers.get("Content-Security-Policy", "")
    return {**headers, "Content-Security-Policy": sorted(csp.split("; "))}


def test_dates_are_site_time_and_utc_to_the_second(client, corpus):
    """The autumn hour that happens twice in Warsaw, and a second's last microsecond: the
    database's form names the wall clock and drops the microseconds, as WordPress does."""
    rows = {t["slug"]: t for t in client.get(f"{API}/terms", {"per_page": 100}).json()}
    assert rows["pojecie-0"]["date"] == "2025-10-26T02:30:00"
    assert rows["pojecie-1"]["date"] == "2025-10-26T02:30:00"
    assert rows["pojecie-1"]["date_gmt"] == "2025-10-26T01:30:00"
    assert rows["pojecie-2"]["date"] == "2026-03-29T03:00:00"
    assert rows["pojecie-4"]["date_gmt"] == "0999-06-01T12:00:00"
    assert rows["pojecie-0"]["modified_gmt"] == "2024-12-31T23:59:59"


def test_link_ids_are_published_ones_in_code_point_order(client, corpus):
    """Categories come by name in code point order, related terms by their sort key; a draft
    or a future-dated term is never among them."""
    term = Term.objects.get(slug="pojecie-4")
    data = client.get(f"{API}/terms", {"slug": "pojecie-4"}).json()[0]
    names = list(Term.objects.get(pk=term.pk).categories.values_list("name", flat=True))
    by_id = dict(Term.objects.get(pk=term.pk).categories.values_list("name", "id"))
    assert data["categories"] == [by_id[n] for n in sorted(names)]
    assert [n for n in sorted(names)] == ["B", "Z", "a", "ą"]
    visible = set(Term.objects.published().values_list("id", flat=True))
    assert data["related"] and set(data["related"]) <= visible
    assert len(data["related"]) == 3


def test_a_scheduled_term_appears_when_its_time_comes(client, corpus):
    """The statement is compiled once: its clock is a parameter, so a term whose publication
    time passes between two requests joins the related ids of the next one."""
    soon = make_term("Za chwilę", published_at=timezone.now() + timedelta(hours=1))
    corpus[0].related.add(soon)
    first = client.get(f"{API}/terms", {"slug": "pojecie-0"}).json()[0]
    assert soon.pk not in first["related"]
    Term.objects.filter(pk=soon.pk).update(published_at=timezone.now() - timedelta(seconds=1))
    second = client.get(f"{API}/terms", {"slug": "pojecie-0"}).json()[0]
    assert soon.pk in second["related"]


def test_editors_and_edit_context_keep_the_python_form(editor_auth, client, corpus):
    """`context=edit` shows raw text and drafts: the serializers build it (no statement of
    this form runs for it)."""
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(f"{API}/terms", {"context": "edit"}, **editor_auth)
    assert response.status_code == 200 and "raw" in response.json()[0]["title"]
    assert not any(_built(ctx.captured_queries))


def test_articles_list_their_published_terms(client, corpus):
    """An article's `terms` are its published terms in the order of their sort key."""
    article = Article.objects.get(slug="artykul-0")
    data = client.get(f"{API}/articles", {"slug": "artykul-0"}).json()[0]
    published = Term.objects.published().filter(articles=article)
    assert data["terms"] == list(published.order_by("sort_key", "id").values_list("id", flat=True))


@POSTGRESQL_ONLY
@pytest.mark.parametrize("page", [1, 2, 3])
def test_a_page_is_one_row_in_the_lists_order(client, corpus, monkeypatch, page):
    """A page of a readers' list in `context=view` comes back from the database as one row:
    its objects joined in the list's order (here A–Z, which is not the order of the ids), so
    Python handles no row of it; the same bytes as the serializers' form, page by page."""
    for name in ("Żuraw", "Mysz", "Antylopa", "Wilk", "Bóbr", "Kot", "Łoś"):
        make_term(name)
    params = {"per_page": 4, "page": page}
    client.get(f"{API}/terms", {"per_page": 4})  # a full first page: the walked ids read
    with CaptureQueriesContext(connection) as ctx:
        whole = client.get(f"{API}/terms", params)
    statements = [q["sql"] for q in ctx.captured_queries if BUILT in q["sql"]]
    assert len(statements) == 1 and "STRING_AGG(" in statements[0]
    everything = [t["id"] for t in client.get(f"{API}/terms", {"per_page": 100}).json()]
    assert [t["id"] for t in whole.json()] == everything[4 * (page - 1) : 4 * page]
    assert everything != sorted(everything)
    assert whole["X-WP-Total"] == str(len(everything))
    monkeypatch.setattr(rowjson, "applies", lambda model, params: False)
    assert client.get(f"{API}/terms", params).content == whole.content


def test_the_sites_address_follows_a_change_without_recompiling(client, corpus, site_address):
    """`link` and `_links` are written by the statement from the site's address of the
    moment (values of the statement, not part of it): after a change of address the next
    list names the new one, in both the whole-page and the per-object form."""
    before = client.get(f"{API}/terms", {"per_page": 2}).json()
    assert not before[0]["link"].startswith("https://slownik.example/")
    site_address("https://slownik.example")
    for params in ({"per_page": 2}, {"per_page": 2, "context": "embed"}):
        after = client.get(f"{API}/terms", params).json()
        assert after[0]["link"] == f"https://slownik.example/slownik/{after[0]['slug']}/"
        self_href = after[0]["_links"]["self"][0]["href"]
        assert self_href == f"https://slownik.example{API}/terms/{after[0]['id']}"


@pytest.mark.parametrize(
    "query", ["", "?context=embed", "?_fields=id,link,related,_links", "?_embed", "?_embed=wp:term"]
)
@pytest.mark.parametrize("kind", ["terms", "articles"])
def test_an_entrys_own_route_is_the_same_object_and_tag(client, corpus, monkeypatch, kind, query):
    """An entry's own route (`/terms/<id>`, `/articles/<id>`) is read in the database's form
    in one statement with the content state: the same bytes and the same ETag (its entry
    token included) as the serializers give from the row and its links."""
    model = Term if kind == "terms" else Article
    for entry in model.objects.published():
        path = f"{API}/{kind}/{entry.pk}{query}"
        with CaptureQueriesContext(connection) as ctx:
            built = client.get(path)
        assert _built(ctx.captured_queries) == [True]
        monkeypatch.setattr(rowjson, "applies", lambda model, params: False)
        python = client.get(path)
        monkeypatch.undo()
        assert built.status_code == python.status_code == 200
        assert built.content == python.content
        assert built["ETag"] == python["ETag"]
