"""Reading the glossary through the REST API: WordPress's conventions (developer.wordpress.org
/rest-api: Pagination, Linking and Embedding, Global Parameters), each one a rule here, on
PostgreSQL and SQLite."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from glossary import search, selectors
from glossary.models import Article, Series, Status
from tests.factories import make_article, make_category, make_draft_term, make_term

from .conftest import API

pytestmark = pytest.mark.django_db


@pytest.fixture
def glossary(db):
    """Three published terms in two categories, related, used by a published article."""
    transport = make_category("Transport")
    protocols = make_category("Protokoły")
    sse = make_term("SSE", short_definition="Strumień zdarzeń z serwera.", body="**Treść** SSE")
    http = make_term("HTTP", short_definition="Protokół sieci WWW.")
    mcp = make_term("MCP", short_definition="Model Context Protocol.")
    sse.categories.set([transport])
    http.categories.set([transport, protocols])
    sse.related.set([http, mcp])
    series = Series.objects.create(name="Seria", slug="seria")
    article = make_article("O SSE", lead="Lead.", terms=[sse, http], series=series, series_order=1)
    return {"sse": sse, "http": http, "mcp": mcp, "transport": transport,
            "protocols": protocols, "article": article, "series": series}  # fmt: skip


def get(client, path, **params):
    return client.get(f"{API}{path}", params)


# --- objects ---------------------------------------------------------------------------------
def test_a_term_carries_wordpress_fields(client, glossary):
    """A term has id, slug, link (its page), WordPress dates (site time and GMT, no offset),
    status, type, title/content/excerpt `rendered` (the sanitized HTML the page shows), and
    no `raw` outside context=edit."""
    sse = glossary["sse"]
    data = get(client, f"/terms/{sse.pk}").json()
    assert data["id"] == sse.pk and data["slug"] == "sse" and data["type"] == "term"
    assert data["link"].endswith("/slownik/sse/") and data["link"].startswith("http")
    assert data["status"] == "publish"
    assert data["title"] == {"rendered": "SSE"}
    assert data["content"] == {"rendered": sse.body_html} and "<strong>" in sse.body_html
    assert data["excerpt"]["rendered"] == "<p>Strumień zdarzeń z serwera.</p>\n"
    local = timezone.localtime(sse.published_at).strftime("%Y-%m-%dT%H:%M:%S")
    assert data["date"] == local and len(data["date_gmt"]) == 19 and "+" not in data["date_gmt"]
    assert data["modified"] and data["modified_gmt"]
    assert set(data["categories"]) == {glossary["transport"].pk}
    assert set(data["related"]) == {glossary["http"].pk, glossary["mcp"].pk}
    assert "last_editor" not in data


def test_an_article_carries_its_terms_and_series(client, glossary):
    """An article lists the glossary terms it uses, its series and its place in it."""
    article = glossary["article"]
    data = get(client, f"/articles/{article.pk}").json()
    assert data["type"] == "article" and data["title"]["rendered"] == "O SSE"
    assert data["excerpt"]["rendered"] == "<p>Lead.</p>\n"
    assert sorted(data["terms"]) == sorted([glossary["sse"].pk, glossary["http"].pk])
    assert data["series"] == glossary["series"].pk and data["series_order"] == 1


@pytest.mark.parametrize("kind", ["terms", "articles"])
@pytest.mark.parametrize("params", [{}, {"_embed": ""}, {"_fields": "id,related,terms,_links"}])
def test_an_object_is_its_list_item(client, glossary, kind, params):
    """A reader's `/<kind>/<id>` (its row and links read in one statement) is exactly the
    item `/<kind>?include=<id>` lists (the row, then the page's links query)."""
    pk = glossary["sse" if kind == "terms" else "article"].pk
    for _ in range(2):  # the second request runs the compiled statements
        listed = get(client, f"/{kind}", include=pk, **params).json()
        assert get(client, f"/{kind}/{pk}", **params).json() == listed[0]


def test_categories_and_series_are_taxonomies_with_counts(client, glossary):
    """Categories and series look like WordPress's taxonomy terms; `count` counts published
    entries only."""
    make_draft_term("Szkic w transporcie").categories.set([glossary["transport"]])
    cats = {c["slug"]: c for c in get(client, "/categories").json()}
    assert cats["transport"]["count"] == 2 and cats["transport"]["taxonomy"] == "category"
    assert cats["protokoly"]["count"] == 1
    series = get(client, f"/series/{glossary['series'].pk}").json()
    assert series["count"] == 1 and series["taxonomy"] == "series" and series["name"] == "Seria"


# --- collections -----------------------------------------------------------------------------
def test_pagination_headers_and_links(client, glossary):
    """X-WP-Total and X-WP-TotalPages count the collection; Link names next and prev pages."""
    first = get(client, "/terms", per_page=2)
    assert first["X-WP-Total"] == "3" and first["X-WP-TotalPages"] == "2"
    assert (
        'rel="next"' in first["Link"] and "page=2" in first["Link"] and "prev" not in first["Link"]
    )
    second = get(client, "/terms", per_page=2, page=2)
    assert (
        len(second.json()) == 1 and 'rel="prev"' in second["Link"] and "next" not in second["Link"]
    )
    assert (
        get(client, "/terms", per_page=2, offset=1).json()[0]["slug"] == second.json()[0]["slug"]
        or len(get(client, "/terms", per_page=2, offset=1).json()) == 2
    )
    assert "X-WP-Total" in first["Access-Control-Expose-Headers"]


def test_default_page_size_is_ten_and_terms_run_a_to_z(client, db):
    """per_page defaults to 10; terms are listed in Polish alphabetical order by default."""
    for name in ["Łańcuch", "Lampa", "Zebra", "Żaba", "Agent", *[f"X{i}" for i in range(8)]]:
        make_term(name)
    response = get(client, "/terms")
    names = [t["title"]["rendered"] for t in response.json()]
    assert len(names) == 10 and response["X-WP-Total"] == "13"
    assert names[:3] == ["Agent", "Lampa", "Łańcuch"]


@pytest.mark.parametrize(
    "params, code",
    [
        ({"per_page": 101}, "rest_invalid_param"),
        ({"per_page": 0}, "rest_invalid_param"),
        ({"page": 0}, "rest_invalid_param"),
        ({"page": "x"}, "rest_invalid_param"),
        ({"page": 99}, "rest_post_invalid_page_number"),
        ({"include": "1,abc"}, "rest_invalid_param"),
        ({"include": str(2**70)}, "rest_invalid_param"),
        ({"orderby": "relevance"}, "rest_no_search_term_defined"),
        ({"orderby": "include"}, "rest_orderby_include_missing_include"),
        ({"orderby": "nope"}, "rest_invalid_param"),
        ({"order": "up"}, "rest_invalid_param"),
        ({"after": "yesterday"}, "rest_invalid_param"),
        ({"status": "draft"}, "rest_forbidden_status"),
        ({"context": "edit"}, "rest_forbidden_context"),
        ({"context": "nope"}, "rest_invalid_param"),
        ({"slug": "a" * 300}, "rest_invalid_param"),
        ({"_fields": "id,<script>"}, "rest_invalid_param"),
    ],
)
def test_bad_parameters_get_wordpress_errors(client, glossary, params, code):
    """Invalid query parameters are a 4xx in WordPress's shape naming the parameter, never a
    500 (per_page beyond 100 included)."""
    response = get(client, "/terms", **params)
    body = response.json()
    assert 400 <= response.status_code < 500
    assert body["code"] == code and body["data"]["status"] == response.status_code
    assert body["message"]
    if code == "rest_invalid_param":
        (name,) = params
        assert name in body["data"]["params"] and body["data"]["details"][name]["code"]


def test_nul_bytes_and_control_characters_never_reach_the_database(client, glossary):
    """A NUL byte in a search or slug is cleaned or rejected, not sent to PostgreSQL."""
    assert get(client, "/terms", search="ss\x00e").status_code == 200
    assert get(client, "/terms", slug="ss\x00e").status_code == 400
    assert get(client, "/search", search="\x00\x01").status_code == 200
    assert client.get(f"{API}/terms", HTTP_AUTHORIZATION="Basic AA==").status_code in (400, 401)


def test_unknown_ids_and_routes(client, glossary):
    """Unknown ids are WordPress's invalid-id 404s, unknown routes `rest_no_route`, wrong
    methods 405 with Allow; all JSON."""
    assert get(client, "/terms/987654").json()["code"] == "rest_term_invalid_id"
    assert get(client, "/articles/987654").json()["code"] == "rest_article_invalid_id"
    assert get(client, "/categories/987654").status_code == 404
    missing = client.get("/wp-json/nothing/here")
    assert missing.status_code == 404 and missing.json()["code"] == "rest_no_route"
    wrong = client.put(
        f"{API}/categories/{glossary['transport'].pk}", {}, content_type="application/json"
    )
    assert wrong.status_code == 405 and "GET" in wrong["Allow"]


def test_slug_filter_takes_one_or_several(client, glossary):
    """`slug` accepts one slug, a comma list or slug[]=…; the answer is a list."""
    assert [t["slug"] for t in get(client, "/terms", slug="sse").json()] == ["sse"]
    both = client.get(f"{API}/terms?slug[]=sse&slug[]=mcp&orderby=include_slugs")
    assert [t["slug"] for t in both.json()] == ["sse", "mcp"]
    assert get(client, "/terms", slug="nie-ma").json() == []


def test_include_exclude_and_orderby(client, glossary):
    """include/exclude select by id; orderby=include keeps the given order; order=desc."""
    ids = [glossary["mcp"].pk, glossary["sse"].pk]
    got = get(client, "/terms", include=",".join(map(str, ids)), orderby="include").json()
    assert [t["id"] for t in got] == ids
    rest = get(client, "/terms", exclude=glossary["sse"].pk).json()
    assert glossary["sse"].pk not in [t["id"] for t in rest]
    desc = get(client, "/terms", orderby="title", order="desc").json()
    assert [t["slug"] for t in desc] == ["sse", "mcp", "http"]


def test_search_uses_the_one_engine_and_its_ranking(client, glossary):
    """`search` ranks like the site and MCP (glossary.search), best first."""
    expected = [hit.slug for hit in search.term_search(query="protokół", limit=10)]
    got = [t["slug"] for t in get(client, "/terms", search="protokół").json()]
    assert got == expected and got
    hits = get(client, "/search", search="sse").json()
    assert hits[0]["slug"] == "sse" and hits[0]["type"] == "term"
    assert hits[0]["url"].endswith("/slownik/sse/")
    articles = get(client, "/search", search="sse", type="article").json()
    assert [a["slug"] for a in articles] == [h.slug for h in search.article_search(query="sse")]


def test_relation_filters(client, glossary):
    """categories, related, article (terms); terms, series (articles); term (categories)."""
    in_protocols = get(client, "/terms", categories=glossary["protocols"].pk).json()
    assert [t["slug"] for t in in_protocols] == ["http"]
    related = get(client, "/terms", related=glossary["sse"].pk).json()
    assert {t["slug"] for t in related} == {"http", "mcp"}
    used = get(client, "/terms", article=glossary["article"].pk).json()
    assert {t["slug"] for t in used} == {"http", "sse"}
    using = get(client, "/articles", terms=glossary["sse"].pk).json()
    assert [a["id"] for a in using] == [glossary["article"].pk]
    assert get(client, "/articles", series=glossary["series"].pk).json()[0]["slug"] == "o-sse"
    cats = get(client, "/categories", term=glossary["http"].pk).json()
    assert {c["slug"] for c in cats} == {"transport", "protokoly"}
    assert (
        get(client, "/categories", hide_empty="true", search="prot").json()[0]["slug"]
        == "protokoly"
    )


def test_date_filters(client, glossary):
    """after/before compare publication dates, modified_after/_before the last change."""
    old = make_term("Stare", published_at=timezone.now() - timedelta(days=30))
    week_ago = (timezone.now() - timedelta(days=7)).isoformat()
    assert [t["slug"] for t in get(client, "/terms", before=week_ago).json()] == [old.slug]
    assert old.slug not in [t["slug"] for t in get(client, "/terms", after=week_ago).json()]
    future = (timezone.now() + timedelta(days=1)).isoformat()
    assert get(client, "/terms", modified_after=future).json() == []


# --- global parameters -------------------------------------------------------------------------
def test_fields_limits_the_answer_even_nested(client, glossary):
    """_fields keeps only the listed fields; `title.rendered` selects inside an object;
    _links appears only when listed."""
    data = get(client, f"/terms/{glossary['sse'].pk}", _fields="id,title.rendered").json()
    assert data == {"id": glossary["sse"].pk, "title": {"rendered": "SSE"}}
    rows = get(client, "/terms", _fields="slug,_links").json()
    assert set(rows[0]) == {"slug", "_links"}


def test_links_follow_wordpress_relations(client, glossary):
    """_links has self, collection, about, wp:term (categories, embeddable), related terms,
    the articles using the term, WordPress's curies and `version-history` (its revisions,
    which only editors may read)."""
    sse = glossary["sse"]
    data = get(client, f"/terms/{sse.pk}").json()
    links = data["_links"]
    assert links["self"][0]["href"].endswith(f"{API}/terms/{sse.pk}")
    assert links["collection"][0]["href"].endswith(f"{API}/terms")
    assert links["about"][0]["href"].endswith(f"{API}/types/term")
    assert links["wp:term"][0] == {"taxonomy": "category", "embeddable": True,
                                   "href": links["wp:term"][0]["href"]}  # fmt: skip
    assert links["wp:term"][0]["href"].endswith(f"/categories?term={sse.pk}")
    assert links["related"][0]["embeddable"] and links["webflux:articles"][0]["embeddable"]
    assert {"name": "wp", "href": "https://api.w.org/{rel}", "templated": True} in links["curies"]
    assert links["version-history"][0]["href"].endswith(f"{API}/terms/{sse.pk}/revisions")
    # Every link resolves: following it answers 200.
    for rel in ("self", "collection", "about", "wp:term", "related", "webflux:articles"):
        href = links[rel][0]["href"].split("127.0.0.1:8000", 1)[-1]
        assert client.get(href).status_code == 200, rel


def test_embed_all_or_named_relations(client, glossary):
    """_embed puts linked objects into _embedded in context=embed (one list per link); a
    relation name embeds only that relation; embedded data equals following the link."""
    sse = glossary["sse"]
    data = get(client, f"/terms/{sse.pk}", _embed="").json()
    embedded = data["_embedded"]
    assert set(embedded) == {"wp:term", "related", "webflux:articles"}
    (cats,) = embedded["wp:term"]
    assert [c["slug"] for c in cats] == ["transport"] and cats[0]["taxonomy"] == "category"
    (related,) = embedded["related"]
    assert [t["slug"] for t in related] == [
        t["slug"] for t in get(client, "/terms", related=sse.pk).json()
    ]
    assert set(related[0]) == {"id", "slug", "type", "link", "title", "excerpt", "_links"}
    only = get(client, f"/terms/{sse.pk}", _embed="related").json()["_embedded"]
    assert set(only) == {"related"}
    article = get(client, f"/articles/{glossary['article'].pk}", _embed="1").json()
    assert {t["slug"] for t in article["_embedded"]["webflux:terms"][0]} == {"sse", "http"}
    assert article["_embedded"]["wp:term"][0][0]["slug"] == "seria"


def test_context_edit_shows_raw_texts_to_editors(client, glossary, editor_auth):
    """context=edit adds raw title/content/excerpt and the last editor, for editors only."""
    sse = glossary["sse"]
    data = client.get(f"{API}/terms/{sse.pk}", {"context": "edit"}, **editor_auth).json()
    assert data["content"]["raw"] == "**Treść** SSE" and data["title"]["raw"] == "SSE"
    assert data["excerpt"]["raw"] == "Strumień zdarzeń z serwera." and "last_editor" in data
    embed = get(client, f"/terms/{sse.pk}", context="embed").json()
    assert "content" not in embed and "date" not in embed and embed["title"] == {"rendered": "SSE"}


def test_english_fields_in_view_and_asked_as_only_in_edit(client, glossary, editor_auth):
    """A term's English name and definition are plain strings of its object in view and edit
    (not in embed); the phrases editors attached (`asked_as`) are editorial: only in
    context=edit, never in a reader's object, list, search answer or `_fields`."""
    sse = glossary["sse"]
    sse.english_name, sse.english_definition = "Server-Sent Events", "A <stream> & more."
    sse.asked_as = ["ukryte pytanie czytelnika"]
    sse.save()
    one = get(client, f"/terms/{sse.pk}").json()
    assert one["english_name"] == "Server-Sent Events"
    assert one["english_definition"] == "A <stream> & more." and "asked_as" not in one
    assert get(client, f"/terms/{glossary['http'].pk}").json()["english_name"] == ""
    for path, params in [("/terms", {}), ("/terms", {"search": "ukryte pytanie"}),
                         ("/terms", {"_fields": "id,asked_as"}), ("/search", {"search": "sse"}),
                         (f"/terms/{sse.pk}", {"_fields": "asked_as"})]:  # fmt: skip
        response = get(client, path, **params)
        assert response.status_code == 200 and b"ukryte pytanie" not in response.content, path
    embed = get(client, f"/terms/{sse.pk}", context="embed").json()
    assert "english_name" not in embed
    edit = client.get(f"{API}/terms/{sse.pk}", {"context": "edit"}, **editor_auth).json()
    assert edit["asked_as"] == ["ukryte pytanie czytelnika"]
    assert edit["english_name"] == "Server-Sent Events"


# --- visibility --------------------------------------------------------------------------------
@pytest.fixture
def hidden(glossary):
    """A draft and a future-dated term and article, linked to everything public."""
    draft = make_draft_term("Tajny szkic", short_definition="ukryte")
    future = make_term("Przyszłe", published_at=timezone.now() + timedelta(days=3))
    for term in (draft, future):
        term.categories.set([glossary["transport"]])
        term.related.set([glossary["sse"]])
    draft_article = make_article(
        "Szkic artykułu", status=Status.DRAFT, terms=[glossary["sse"], draft]
    )
    future_article = make_article(
        "Przyszły artykuł", terms=[glossary["sse"], future],
        published_at=timezone.now() + timedelta(days=3), series=glossary["series"], series_order=2,
    )  # fmt: skip
    glossary["article"].terms.add(draft, future)
    return {"terms": [draft, future], "articles": [draft_article, future_article]}


LEAK_QUERIES = [
    ("/terms", {}), ("/terms", {"per_page": 100}), ("/terms", {"search": "szkic"}),
    ("/terms", {"search": "przyszłe"}), ("/terms", {"slug": "tajny-szkic,przyszle"}),
    ("/terms", {"include": "{term_ids}"}), ("/terms", {"categories": "{transport}"}),
    ("/terms", {"related": "{sse}"}), ("/terms", {"article": "{article}"}),
    ("/terms", {"_embed": ""}), ("/terms", {"orderby": "date"}),
    ("/articles", {}), ("/articles", {"terms": "{sse}"}), ("/articles", {"_embed": ""}),
    ("/articles", {"include": "{article_ids}"}), ("/articles", {"search": "artykuł"}),
    ("/articles", {"series": "{series}"}),
    ("/categories", {"_embed": ""}), ("/series", {}),
    ("/search", {"search": "szkic"}), ("/search", {"search": "przyszły", "type": "article"}),
    ("/search", {"search": "tajny", "_embed": ""}),
    ("/terms/{sse}", {"_embed": ""}), ("/articles/{article}", {"_embed": ""}),
]  # fmt: skip


def _linked_ids(node, found=None) -> set[int]:
    """Ids of entries named anywhere in an answer: `id` of term/article objects, id lists
    (`related`, `terms`) and the last segment of entry hrefs."""
    found = set() if found is None else found
    if isinstance(node, dict):
        if node.get("type") in ("term", "article") and isinstance(node.get("id"), int):
            found.add((node["type"], node["id"]))
        for key in ("related", "terms"):
            if isinstance(node.get(key), list):
                kind = "term"
                found.update((kind, i) for i in node[key] if isinstance(i, int))
        for value in node.values():
            _linked_ids(value, found)
    elif isinstance(node, list):
        for item in node:
            _linked_ids(item, found)
    return found


@pytest.mark.parametrize("path, params", LEAK_QUERIES)
def test_drafts_and_future_entries_never_leak(client, glossary, hidden, path, params):
    """Through no route, filter, include, slug, search, embed or count does an anonymous
    reader learn of a draft or a future-dated entry (X-WP-Total included)."""
    names = {
        "term_ids": ",".join(str(t.pk) for t in hidden["terms"]),
        "article_ids": ",".join(str(a.pk) for a in hidden["articles"]),
        "transport": glossary["transport"].pk, "sse": glossary["sse"].pk,
        "article": glossary["article"].pk, "series": glossary["series"].pk,
    }  # fmt: skip
    response = client.get(
        f"{API}{path.format(**names)}", {k: str(v).format(**names) for k, v in params.items()}
    )
    assert response.status_code == 200
    text, data = response.content.decode(), response.json()
    for entry in [*hidden["terms"], *hidden["articles"]]:
        assert entry.slug not in text
        assert (str, entry.title if isinstance(entry, Article) else entry.name)[1] not in text
    hidden_ids = {("term", t.pk) for t in hidden["terms"]} | {
        ("article", a.pk) for a in hidden["articles"]
    }
    assert not (_linked_ids(data) & hidden_ids)
    if "X-WP-Total" in response and response["X-WP-TotalPages"] in ("0", "1"):
        assert int(response["X-WP-Total"]) == len(data)
    if path == "/categories":
        assert {c["slug"]: c["count"] for c in data}["transport"] == 2
    if path == "/series":
        assert data[0]["count"] == 1


@pytest.mark.parametrize("kind", ["terms", "articles"])
def test_hidden_entries_are_404_by_id(client, hidden, kind, editor_auth):
    """A draft or future entry by id is the same 404 as a missing one for readers, and
    visible to editors."""
    for entry in hidden[kind]:
        response = client.get(f"{API}/{kind}/{entry.pk}")
        assert response.status_code == 404 and response.json()["code"].endswith("_invalid_id")
        assert client.get(f"{API}/{kind}/{entry.pk}", **editor_auth).status_code == 200
        assert client.get(f"{API}/{kind}/{entry.pk}/", {"_embed": ""}).status_code == 404


def test_editors_ask_for_drafts_with_status(client, hidden, editor_auth):
    """Editors list drafts and scheduled entries with `status`; the default stays `publish`."""
    default = client.get(f"{API}/terms", **editor_auth).json()
    assert all(t["status"] == "publish" for t in default)
    drafts = client.get(f"{API}/terms", {"status": "draft"}, **editor_auth).json()
    assert [t["slug"] for t in drafts] == ["tajny-szkic"]
    future = client.get(f"{API}/terms", {"status": "future"}, **editor_auth).json()
    assert [t["status"] for t in future] == ["future"]
    both = client.get(f"{API}/terms", {"status": "draft,future", "search": "szkic"}, **editor_auth)
    assert [t["slug"] for t in both.json()] == ["tajny-szkic"]


def test_pagination_links_repeat_the_query_but_the_page(client, glossary):
    """`next` and `prev` repeat the request's other parameters as the client sent them, in
    order, without `offset` and with the neighbouring `page`; a query with bytes the client
    did not percent-encode is encoded again."""
    response = client.get(f"{API}/terms?per_page=1&_fields=id,slug&offset=1&orderby=title")
    query = "?per_page=1&_fields=id,slug&orderby=title&page="
    assert f'{API}/terms{query}1>; rel="prev"' in response["Link"]
    assert f'{API}/terms{query}3>; rel="next"' in response["Link"]
    raw = client.get(f"{API}/terms?per_page=1&x=\u017c&page=2")
    assert f'{API}/terms?per_page=1&x=%C5%BC&page=3>; rel="next"' in raw["Link"]


# --- query counts ------------------------------------------------------------------------------
@pytest.fixture
def many(glossary):
    for i in range(25):
        term = make_term(f"Pojęcie {i:02d}")
        term.categories.set([glossary["transport"], glossary["protocols"]])
        term.related.set([glossary["sse"], glossary["http"]])
    for i in range(12):
        make_article(f"Artykuł {i:02d}", terms=[glossary["sse"], glossary["mcp"]])


@pytest.mark.parametrize(
    "path, params, queries",
    [
        # the rows with their links and the content state in one statement, the count
        ("/terms", {"per_page": 5}, 2),
        ("/terms", {"per_page": 20}, 2),
        ("/terms", {"per_page": 20, "_embed": ""}, 2),
        ("/terms", {"per_page": 100}, 1),  # the whole list in one page: no COUNT
        ("/terms", {"slug": "sse"}, 1),
        ("/terms", {"slug": "sse", "_embed": ""}, 1),
        # the engine's statement, then the rows, then a COUNT (the search alone: below)
        ("/terms", {"search": "pojęcie", "per_page": 5, "exclude": "999"}, 3),
        ("/terms", {"categories": "{transport}", "related": "{sse}", "per_page": 5}, 2),
        ("/articles", {"per_page": 5}, 2),
        ("/articles", {"per_page": 10, "_embed": ""}, 2),
        # model rows, not compiled values: the content state, then the rows
        ("/categories", {}, 2),
        ("/search", {"search": "pojęcie"}, 2),
        # an entry's row, its links and the content state its ETag is keyed by
        ("/terms/{sse}", {}, 1),
        ("/terms/{sse}", {"_embed": ""}, 1),
        ("/articles/{article}", {"_embed": ""}, 1),
        ("/categories/{transport}", {}, 2),
    ],
)
def test_constant_query_counts(
    client, glossary, many, django_assert_num_queries, path, params, queries
):
    """Lists and details run a fixed number of queries, whatever the page size or _embed."""
    names = {"sse": glossary["sse"].pk, "transport": glossary["transport"].pk,
             "article": glossary["article"].pk}  # fmt: skip
    url = f"{API}{path.format(**names)}"
    params = {k: str(v).format(**names) for k, v in params.items()}
    selectors.content_state()  # the state as of the fixtures' writes is the one last read
    with django_assert_num_queries(queries):
        assert client.get(url, params).status_code == 200


@pytest.mark.parametrize("per_page", [5, 100])
def test_a_search_list_is_the_engines_statement(
    client, glossary, many, django_assert_num_queries, per_page
):
    """A readers' search list: on PostgreSQL the engine's statement and the page are one
    statement (the ranked ids are its CTE, their number the total); on SQLite the engine,
    then the page. Either way no COUNT. (Once in a while the engine reads its planner
    statistics first, which is a statement of its own: the first search here does.)"""
    params = {"search": "pojęcie", "per_page": per_page}
    assert client.get(f"{API}/terms", params).status_code == 200  # statistics read
    selectors.content_state()
    with django_assert_num_queries(1 if connection.vendor == "postgresql" else 2):
        response = client.get(f"{API}/terms", params)
    assert response.status_code == 200 and int(response["X-WP-Total"]) == 25
    assert len(response.json()) == min(per_page, 25)


# --- conditional requests ------------------------------------------------------------------
def test_conditional_get_is_304_after_one_query(client, glossary, django_assert_num_queries):
    """An If-None-Match equal to the ETag is answered 304 after the content-state query."""
    first = get(client, "/terms", per_page=2)
    etag = first["ETag"]
    with django_assert_num_queries(1):
        again = client.get(f"{API}/terms", {"per_page": 2}, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b"" and again["ETag"] == etag
    detail = get(client, f"/terms/{glossary['sse'].pk}")
    with django_assert_num_queries(1):
        assert (
            client.get(
                f"{API}/terms/{glossary['sse'].pk}", HTTP_IF_NONE_MATCH=detail["ETag"]
            ).status_code
            == 304
        )


def test_an_edit_changes_the_etag(client, glossary):
    """Any write to the glossary changes the ETag (the content version moves)."""
    etag = get(client, "/terms")["ETag"]
    glossary["mcp"].short_definition = "Zmieniona definicja."
    glossary["mcp"].save()
    assert get(client, "/terms")["ETag"] != etag
    assert client.get(f"{API}/terms", HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_etag_depends_on_who_asks(client, glossary, editor_auth):
    """Editors and readers get different ETags for the same URL (editors may see drafts)."""
    assert get(client, "/terms")["ETag"] != client.get(f"{API}/terms", **editor_auth)["ETag"]
    assert "Authorization" in get(client, "/terms")["Vary"]


def test_last_modified_only_once_the_state_is_a_second_old(client, glossary, monkeypatch):
    """Last-Modified is when this process first saw the content state, sent once that second
    is over; If-Modified-Since with it is 304, and stays 200 after an edit."""
    import time as time_module

    from api import conditional

    real = time_module.time
    assert "Last-Modified" not in get(client, "/terms")
    monkeypatch.setattr(conditional.time, "time", lambda: real() + 5)
    response = get(client, "/terms")
    since = response["Last-Modified"]
    assert client.get(f"{API}/terms", HTTP_IF_MODIFIED_SINCE=since).status_code == 304
    glossary["mcp"].save()
    assert client.get(f"{API}/terms", HTTP_IF_MODIFIED_SINCE=since).status_code == 200


def test_draft_article_still_counts_nowhere(client, glossary):
    """A draft article in a series does not raise the series' count."""
    make_article("Szkic w serii", status=Status.DRAFT, series=glossary["series"], series_order=5)
    assert get(client, f"/series/{glossary['series'].pk}").json()["count"] == 1
    assert Article.objects.count() == 2


SAME_SHAPE = [
    ({"slug": "sse"}, {"slug": "mcp"}),
    ({"include": "{sse},{http}", "orderby": "include"},
     {"include": "{mcp},{sse}", "orderby": "include"}),
    ({"categories": "{transport}"}, {"categories": "{protocols}"}),
    ({"related": "{sse}", "exclude": "{http}"}, {"related": "{sse}", "exclude": "{mcp}"}),
    ({"search": "sse"}, {"search": "http"}),
    ({"after": "2000-01-01T00:00:00", "slug": "sse"},
     {"after": "2001-01-01T00:00:00", "slug": "http"}),
]  # fmt: skip


@pytest.mark.parametrize("first, second", SAME_SHAPE)
def test_compiled_lists_answer_each_request_with_its_own_values(client, glossary, first, second):
    """Readers' lists reuse SQL compiled for the first request of a shape (api/queries.py);
    a second request of the same shape gets exactly what the ORM gives for its values."""
    from django.http import QueryDict

    from api import queries
    from api.params import TermParams, validate_query
    from api.views import TermViewSet

    names = {k: glossary[k].pk for k in ("sse", "http", "mcp", "transport", "protocols")}
    for params in (first, second, first):
        params = {k: v.format(**names) for k, v in params.items()}
        got = [t["slug"] for t in get(client, "/terms", **params).json()]
        view = TermViewSet()
        view.request, view.action, view.now = None, "list", timezone.now()

        query = QueryDict(mutable=True)
        query.update(params)
        view.params = validate_query(TermParams, query)
        listing = queries.with_ranking(view.listing())  # the engine's ranking, as a read adds it
        expected = [t.slug for t in listing.queryset()[:10]]
        assert got == expected and got, params


@pytest.mark.parametrize("walked", [True, False])
def test_every_page_of_a_list_shares_one_compiled_statement(client, db, monkeypatch, walked):
    """Which page a reader asks for (page or offset) only moves a parameter: the OFFSET of
    the list's statement, or which of the list's ids are read (`WalkedList`, once they are
    known). Pages 1–4 of a list compile at most one statement per number of rows between
    them, and each page holds the rows that slice of the A–Z order has (issue 16: a crawler
    walking pages compiled a statement per page)."""
    from api import queries

    if not walked:
        monkeypatch.setattr(queries, "MAX_WALKED", 0)  # every list too long to keep
    for name in ("Agent", "Bufor", "Cache", "Dane", "Encja", "Format", "Gniazdo"):
        make_term(name)
    queries._COMPILED.clear()
    slugs = [t["slug"] for t in get(client, "/terms", per_page=100).json()]
    before = len(queries._COMPILED)
    pages = [[t["slug"] for t in get(client, "/terms", per_page=2, page=n).json()]
             for n in (1, 2, 3, 4)]  # fmt: skip
    assert pages == [slugs[0:2], slugs[2:4], slugs[4:6], slugs[6:8]]
    assert [t["slug"] for t in get(client, "/terms", per_page=2, offset=3).json()] == slugs[3:5]
    # by OFFSET: one statement; by ids: page 1's OFFSET read, then pages of 2 ids and of 1
    assert len(queries._COMPILED) == before + (3 if walked else 1)


def test_a_walked_list_follows_the_content_state(client, db, django_assert_num_queries):
    """A list with no filter is paged by its ids, read once per content state where the list
    would be counted: later pages run one statement (the rows of their ids, with the content
    state), hold the same rows as the OFFSET read, and any write (a new term, a
    publication) changes the state, so the next page reads the ids again and is never
    stale: its rows of the old ids carry the new state, and it is read again by it."""
    for name in ("Agent", "Bufor", "Cache", "Dane", "Encja"):
        make_term(name)
    first = get(client, "/terms", per_page=2, page=1)
    assert first["X-WP-Total"] == "5" and first["X-WP-TotalPages"] == "3"
    with django_assert_num_queries(1):
        second = get(client, "/terms", per_page=2, page=2)
    assert [t["title"]["rendered"] for t in second.json()] == ["Cache", "Dane"]
    assert second["X-WP-Total"] == "5"
    make_term("Bąk")
    draft = make_draft_term("Czajnik")
    with django_assert_num_queries(3):  # rows of the old ids, then rows by OFFSET, the ids
        later = get(client, "/terms", per_page=2, page=2)
    assert [t["title"]["rendered"] for t in later.json()] == ["Bufor", "Cache"]
    assert later["X-WP-Total"] == "6"
    assert "Czajnik" not in [
        t["title"]["rendered"] for t in get(client, "/terms", per_page=100).json()
    ]
    draft.status = Status.PUBLISHED
    draft.published_at = timezone.now()
    draft.save()
    with django_assert_num_queries(3):
        assert get(client, "/terms", per_page=2, page=3)["X-WP-Total"] == "7"
    with django_assert_num_queries(1):
        third = get(client, "/terms", per_page=2, page=3)
    assert [t["title"]["rendered"] for t in third.json()] == ["Czajnik", "Dane"]
    assert client.get(f"{API}/terms", {"per_page": 2, "page": 5}).status_code == 400


def test_pages_of_one_are_read_as_a_deferred_join(client, db, monkeypatch):
    """`per_page=1` walks the list like any page size: the OFFSET runs over the narrow
    select of ids (a page of one read every skipped wide row before: 25 ms of PostgreSQL per
    page at 10,000 terms), and each page holds the next entry of the A–Z order."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from api import queries

    monkeypatch.setattr(queries, "MAX_WALKED", 0)  # paged by OFFSET, not by known ids
    for name in ("Agent", "Bufor", "Cache", "Dane"):
        make_term(name)
    slugs = [t["slug"] for t in get(client, "/terms", per_page=100).json()]
    with CaptureQueriesContext(connection) as ctx:
        pages = [[t["slug"] for t in get(client, "/terms", per_page=1, page=n).json()]
                 for n in (1, 2, 3, 4)]  # fmt: skip
    assert pages == [[slug] for slug in slugs]
    rows = [q["sql"] for q in ctx.captured_queries if "LIMIT 1 OFFSET" in q["sql"]]
    assert rows and all('"id" IN (SELECT' in sql for sql in rows)


@pytest.mark.parametrize("walked", [True, False])
def test_a_list_keyed_by_a_stale_state_answers_as_of_the_state_its_rows_saw(
    client, db, monkeypatch, walked
):
    """A readers' list keys its total, walked ids and ETag by the content state this process
    read last, and checks that guess against the state its rows' statement reads: after a
    write this process never saw, the answer is the one a request reading the state first
    gives (the same rows, total, pages and ETag), never one of the old state."""
    from api import queries

    if not walked:
        monkeypatch.setattr(queries, "MAX_WALKED", 0)
    for name in ("Agent", "Bufor", "Cache", "Dane", "Encja"):
        make_term(name)
    stale = get(client, "/terms", per_page=2, page=2)
    assert stale["X-WP-Total"] == "5"
    before = selectors.last_content_state()
    make_term("Bąk")
    # As after a write by another process: the state this process read last is not the state.
    monkeypatch.setattr(selectors.state, "_last_state", before)
    guessed = get(client, "/terms", per_page=2, page=2)
    first = client.get(f"{API}/terms", {"per_page": 2, "page": 2}, HTTP_IF_NONE_MATCH='"x"')
    assert guessed.json() == first.json()
    assert [t["title"]["rendered"] for t in guessed.json()] == ["Bufor", "Cache"]
    for header in ("X-WP-Total", "X-WP-TotalPages", "Link", "ETag"):
        assert guessed[header] == first[header], header
    assert guessed["ETag"] != stale["ETag"] and guessed["X-WP-Total"] == "6"


@pytest.mark.parametrize("walked", [True, False])
def test_a_page_past_a_stale_total_is_judged_by_the_state_now(client, db, monkeypatch, walked):
    """A page beyond the end of a list as this process last knew it (its kept total or ids,
    of an older content state) but within the list as it is now is answered, not refused
    with 400: an error found under the guessed state is checked against the state first."""
    from api import queries

    if not walked:
        monkeypatch.setattr(queries, "MAX_WALKED", 0)
    for name in ("Agent", "Bufor", "Cache", "Dane", "Encja"):
        make_term(name)
    assert get(client, "/terms", per_page=2, page=2)["X-WP-TotalPages"] == "3"
    before = selectors.last_content_state()
    make_term("Format")
    make_term("Gniazdo")
    monkeypatch.setattr(selectors.state, "_last_state", before)  # as after another process's write
    last = get(client, "/terms", per_page=2, page=4)
    assert [t["title"]["rendered"] for t in last.json()] == ["Gniazdo"]
    assert last["X-WP-Total"] == "7" and last["X-WP-TotalPages"] == "4"
    assert client.get(f"{API}/terms", {"per_page": 2, "page": 5}).status_code == 400


def test_later_pages_reuse_the_total_until_the_content_changes(
    client, db, django_assert_num_queries
):
    """Every page of a list has the same X-WP-Total: it is counted once per content state,
    so a later page runs no COUNT (the rows with their links and the content state); any write
    changes the state and the next page counts again, so a total is never stale."""
    for name in ("Agent", "Bufor", "Cache", "Dane", "Encja"):
        make_term(name)
    assert get(client, "/terms", per_page=2, page=1)["X-WP-Total"] == "5"
    with django_assert_num_queries(1):  # the rows with their links and the content state
        assert get(client, "/terms", per_page=2, page=2)["X-WP-Total"] == "5"
    make_term("Format")
    with django_assert_num_queries(3):
        third = get(client, "/terms", per_page=2, page=3)
    assert third["X-WP-Total"] == "6" and third["X-WP-TotalPages"] == "3"
    assert [t["title"]["rendered"] for t in third.json()] == ["Encja", "Format"]


def test_a_search_by_relevance_reads_pages_of_the_engines_ranking(client, glossary, many):
    """`?search=` ordered by relevance with nothing else narrowing it reads the engine's
    ranked ids page by page: the same pages, order and totals as the general list SQL (which
    an `exclude` of an id nobody has forces)."""
    for page in (1, 2, 3, 5):
        fast = get(client, "/terms", search="pojęcie", per_page=5, page=page)
        general = get(client, "/terms", search="pojęcie", per_page=5, page=page, exclude=999_999)
        assert fast.status_code == general.status_code == 200
        assert [t["id"] for t in fast.json()] == [t["id"] for t in general.json()]
        assert fast.json() == general.json()
        assert fast["X-WP-Total"] == general["X-WP-Total"] == "25"  # 25 "Pojęcie NN" terms
        assert fast["X-WP-TotalPages"] == general["X-WP-TotalPages"]


@pytest.mark.parametrize(
    "query",
    ["p", "pojęcie", "czym jest pojęcie", "pojecie", "SSE vs HTTP", "pjęcie", "nic takiego"],
    ids=["short", "word", "question", "no diacritics", "comparison", "typo", "no hit"],
)
def test_a_search_lists_the_engines_ranking_in_every_shape(client, glossary, many, query):
    """A readers' `?search=` list is exactly the engine's ranking (`search.ranked_ids`), in
    its order and number, for every shape of query the engine has (short, one word, several,
    a comparison, a typo, nothing found), on SQLite and PostgreSQL alike; on PostgreSQL
    the ranking and the page are one statement."""
    client.get(f"{API}/terms", {"search": query})  # the engine's statistics read
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(f"{API}/terms", {"search": query, "per_page": 100})
    assert response.status_code == 200
    ranked = search.ranked_ids(kind="term", query=query)
    assert [t["id"] for t in response.json()] == ranked
    assert response["X-WP-Total"] == str(len(ranked))
    if connection.vendor == "postgresql":
        assert [q["sql"].startswith("WITH ranked ") for q in ctx.captured_queries] == [True]


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="one statement on PostgreSQL")
def test_a_search_refreshing_the_engines_statistics_answers_the_same(client, glossary, many):
    """A search that must refresh the engine's planner statistics runs the engine alone, then
    the page (two statements); it answers what the one-statement search answers: the same
    bytes, total and pages."""
    from glossary.search import postgres

    params = {"search": "pojęcie", "per_page": 5, "page": 2}
    postgres.STATISTICS.tables.clear()  # statistics due: the engine's own statement
    with CaptureQueriesContext(connection) as ctx:
        alone = client.get(f"{API}/terms", params)
    assert not any(q["sql"].startswith("WITH ranked ") for q in ctx.captured_queries)
    with CaptureQueriesContext(connection) as ctx:
        fused = client.get(f"{API}/terms", params)
    assert [q["sql"].startswith("WITH ranked ") for q in ctx.captured_queries] == [True]
    assert alone.status_code == fused.status_code == 200
    assert alone.content == fused.content
    for header in ("X-WP-Total", "X-WP-TotalPages", "Link", "ETag"):
        assert alone[header] == fused[header]


@pytest.mark.skipif("connection.vendor != 'postgresql'", reason="one statement on PostgreSQL")
def test_searches_of_one_shape_keep_their_drivers_adapters(client, glossary, many):
    """Searches of one engine shape (different words) run one statement object on one kept
    driver cursor, whose psycopg adapters (a dumper per parameter type, a loader per
    column) survive other reads in between. Why it matters: psycopg keeps them only while
    a cursor runs the same query object, and would rebuild them on every search."""
    from django.db import DEFAULT_DB_ALIAS, connections

    from glossary.db import cursors

    kept = connections[DEFAULT_DB_ALIAS]
    client.get(f"{API}/terms", {"search": "pojęcie"})  # the engine's statistics read
    seen = []
    for query in ("pojęcie pierwsze", "pojęcie drugie", "pojęcie trzecie"):
        assert client.get(f"{API}/terms", {"search": query}).status_code == 200
        # Least recently used first: the last search statement is the one just run.
        *_, (text, cursor) = [
            (t, c)
            for t, c in cursors._CURSORS[kept][1].items()
            if t and t.startswith("WITH ranked ")
        ]
        seen.append((text, cursor, cursor._tx))
        assert client.get(f"{API}/terms", {"per_page": 3}).status_code == 200  # another read
    assert len({id(text) for text, _c, _t in seen}) == 1
    assert len({id(cursor) for _s, cursor, _t in seen}) == 1
    assert len({id(adapters) for _s, _c, adapters in seen}) == 1


def test_a_cached_total_is_the_readers_own(client, db, editor_auth):
    """X-WP-Total is cached per content state, list shape and reader: an editor's count with
    drafts and an anonymous count of the same list are kept apart, in either order."""
    for name in ("Agent", "Bufor", "Cache"):
        make_term(name)
    make_draft_term("Szkic")
    both = {"per_page": 1, "status": "publish,draft"}
    assert client.get(f"{API}/terms", both, **editor_auth)["X-WP-Total"] == "4"
    assert client.get(f"{API}/terms", {"per_page": 1}, **editor_auth)["X-WP-Total"] == "3"
    assert get(client, "/terms", per_page=1)["X-WP-Total"] == "3"
    assert get(client, "/terms", per_page=1, status="publish,draft").status_code in (400, 401)
    assert client.get(f"{API}/terms", both, **editor_auth)["X-WP-Total"] == "4"
