"""`glossary.db.prepared.Prepared`: term_detail's SQL is compiled once and re-run with new
values; it must behave exactly like evaluating the QuerySets each time (same rows, same
visibility, same clock)."""

from datetime import timedelta

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.utils import timezone

from glossary import selectors
from glossary.models import Status, Term
from tests.factories import (
    make_article,
    make_category,
    make_draft_term,
    make_future_term,
    make_term,
)

pytestmark = pytest.mark.django_db


def _orm_detail(slug):
    """term_detail written with plain QuerySets, as it was before compiling once."""
    term = Term.objects.published().select_related("last_editor").filter(slug=slug).first()
    if term is None:
        return None
    now = timezone.now()
    rows = list(selectors._term_links(pk=term.pk, now=now))
    return term, sorted(rows, key=lambda r: (r[0], r[1]))


def test_prepared_term_detail_matches_the_queryset():
    """The compiled statements return the same term and links as the QuerySets they came from."""
    category = make_category("Sieci")
    related = make_term("Klient")
    term = make_term("Serwer", synonyms=["host"])
    term.categories.add(category)
    term.related.add(related)
    make_article(terms=[term])
    for _ in range(2):  # the second call runs the cached statements
        detail = selectors.term_detail(slug=term.slug)
        orm_term, orm_links = _orm_detail(term.slug)
        fields = [f.attname for f in Term._meta.concrete_fields]
        assert [getattr(detail.term, f) for f in fields] == [getattr(orm_term, f) for f in fields]
        links = [tuple(x) for x in [*detail.categories, *detail.related, *detail.articles]]
        assert sorted(links, key=lambda r: (r[0], r[1])) == orm_links


@pytest.mark.parametrize("read", ["term", "article"])
def test_the_text_reads_are_the_page_reads_without_the_page_html(read, django_assert_num_queries):
    """`html=False` (the MCP answers) reads the same entry and links as the page's read,
    minus `PAGE_ONLY_COLUMNS`, which stay deferred: the page's HTML is never sent to the
    agent's process, and reading it would cost a query of its own."""
    term = make_term("Serwer", body="Treść o [kliencie](/slownik/klient/).")
    term.related.add(make_term("Klient"))
    article = make_article(title="Artykuł", terms=[term])
    detail_of = getattr(selectors, f"{read}_detail")
    slug = term.slug if read == "term" else article.slug
    page, text = detail_of(slug=slug), detail_of(slug=slug, html=False)
    page_entry, text_entry = getattr(page, read), getattr(text, read)
    hidden = page_entry.get_deferred_fields() | set(selectors.PAGE_ONLY_COLUMNS)
    shown = [f.attname for f in type(page_entry)._meta.concrete_fields if f.attname not in hidden]
    with django_assert_num_queries(0):
        assert [getattr(text_entry, f) for f in shown] == [getattr(page_entry, f) for f in shown]
        assert {k: v for k, v in vars(text).items() if k != read} == {
            k: v for k, v in vars(page).items() if k != read
        }
    assert text_entry.get_deferred_fields() == hidden


def test_prepared_term_detail_reads_the_clock_on_every_call(monkeypatch):
    """A scheduled term appears once its time comes, although the SQL was compiled before."""
    future = make_future_term("Jutro")
    assert selectors.term_detail(slug=future.slug) is None
    later = timezone.now() + timedelta(days=8)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert selectors.term_detail(slug=future.slug).term.pk == future.pk


def test_prepared_term_detail_never_shows_drafts():
    """Drafts stay hidden from the compiled path and visible to the staff (ORM) path only."""
    draft = make_draft_term("Szkic")
    assert selectors.term_detail(slug=draft.slug) is None
    assert selectors.term_detail(slug=draft.slug, include_drafts=True).term.pk == draft.pk


def test_prepared_term_detail_hides_unpublished_links():
    """Related draft terms never appear among a published term's links."""
    term = make_term("Protokół")
    term.related.add(make_draft_term("Ukryty"), make_term("Widoczny"))
    assert [link.title for link in selectors.term_detail(slug=term.slug).related] == ["Widoczny"]


def test_prepared_term_detail_runs_one_query(django_assert_num_queries):
    """The compiled path runs exactly one query, the row with its links."""
    term = make_term("Zapytanie")
    selectors.term_detail(slug=term.slug)
    with django_assert_num_queries(1):
        selectors.term_detail(slug=term.slug)


@pytest.mark.parametrize("prepared", ["_TERM_DETAIL", "_TERM_TEXT"])
def test_this_django_is_really_compiled_ahead(prepared):
    """The compiled path is the one taken, not the silent fallback: if a Django upgrade moves
    the compiler internals glossary/db/prepared.py reads (or turns a placeholder into something
    it cannot find), this fails instead of get_term quietly getting slower."""
    from django.db import DEFAULT_DB_ALIAS, connections

    make_term("Serwer")
    assert selectors.term_detail(slug="serwer", html=prepared == "_TERM_DETAIL") is not None
    compiled = getattr(selectors, prepared).compiled_for(connections[DEFAULT_DB_ALIAS])
    assert compiled is not None, f"selectors.{prepared} fell back to evaluating its QuerySet"
    _sql, roles, _convert = compiled
    assert "now" in {role for role, _value in roles}


def test_prepared_article_detail_matches_the_queryset():
    """article_detail's compiled statements return the same article and links as the
    QuerySets they came from, with and without a series (issue 16)."""
    from glossary.models import Article, Series

    used, other = make_term("Klient"), make_term("Serwer")
    series = Series.objects.create(name="Seria", slug="seria")
    first = make_article(title="Pierwszy", terms=[used, other])
    second = make_article(title="Drugi", terms=[used])
    Article.objects.filter(pk=first.pk).update(series=series, series_order=1)
    Article.objects.filter(pk=second.pk).update(series=series, series_order=2)
    alone = make_article(title="Samotny", terms=[other])
    for article in (first, second, alone):
        for _ in range(2):  # the second call runs the cached statements
            detail = selectors.article_detail(slug=article.slug)
            orm = (
                Article.objects.published()
                .select_related("author", "series")
                .filter(slug=article.slug)
                .first()
            )
            fields = [f.attname for f in Article._meta.concrete_fields]
            assert [getattr(detail.article, f) for f in fields] == [getattr(orm, f) for f in fields]
            series_id = orm.series_id
            rows = selectors._article_links(pk=orm.pk, now=timezone.now(), series=series_id)
            links = [*detail.terms, *detail.mentions, *detail.series_articles]
            assert sorted(tuple(x) for x in links) == sorted(tuple(r) for r in rows)
    detail = selectors.article_detail(slug=second.slug)
    assert detail.previous.slug == first.slug and detail.next is None


def test_prepared_article_detail_never_shows_drafts(django_assert_num_queries):
    """A draft article is hidden from the compiled path (1 query for a published one) and
    visible to the staff (ORM) path only."""
    from glossary.models import Article, Status

    article = make_article(title="Widoczny")
    draft = make_article(title="Szkic")
    Article.objects.filter(pk=draft.pk).update(status=Status.DRAFT)
    assert selectors.article_detail(slug=draft.slug) is None
    assert selectors.article_detail(slug=draft.slug, include_drafts=True).article.pk == draft.pk
    selectors.article_detail(slug=article.slug)
    with django_assert_num_queries(1):
        selectors.article_detail(slug=article.slug)


@pytest.mark.parametrize("prepared", ["_ARTICLE_DETAIL", "_ARTICLE_TEXT"])
def test_article_reads_are_really_compiled_ahead(prepared):
    """article_detail takes the compiled path, not the silent fallback."""
    from django.db import DEFAULT_DB_ALIAS, connections

    article = make_article(title="Artykuł")
    html = prepared == "_ARTICLE_DETAIL"
    assert selectors.article_detail(slug=article.slug, html=html) is not None
    compiled = getattr(selectors, prepared).compiled_for(connections[DEFAULT_DB_ALIAS])
    assert compiled is not None, f"selectors.{prepared} fell back to evaluating its QuerySet"


def _orm_page(letter, category, after, limit):
    """term_page written with plain QuerySets, as it was before compiling once."""
    qs = Term.objects.published()
    if letter:
        qs = qs.filter(letter=letter.upper())
    if category:
        qs = qs.filter(categories__slug=category)
    qs = qs.order_by("sort_key", "id").values(*selectors.TERM_PAGE_FIELDS)
    if after is not None:
        qs = qs.filter(sort_key__gt=after[0]) | qs.filter(sort_key=after[0], id__gt=after[1])
    return list(qs[: limit + 1])


def test_prepared_term_page_matches_the_queryset(django_assert_num_queries):
    """Every shape of term_page (letter, category, keyset position) returns, compiled, the
    same rows as the QuerySet, in one query (issue 16)."""
    category = make_category("Sieci")
    for name in ("Agent", "Adapter", "Bufor", "Ćma", "Serwer", "Sieć", "Żądanie"):
        make_term(name).categories.add(category)
    make_term("Alfa")
    make_draft_term("Szkic")
    rows = _orm_page(None, None, None, 100)
    positions = [None, (rows[1]["sort_key"], rows[1]["id"]), (rows[-1]["sort_key"], 0)]
    for letter in (None, "", "a", "S"):
        for cat in (None, "sieci", "brak"):
            for after in positions:
                for _ in range(2):  # the second call runs the cached statement
                    with django_assert_num_queries(1):
                        page = selectors.term_page(
                            letter=letter, category=cat, after=after, limit=2
                        )
                    assert page == _orm_page(letter, cat, after, 2), (letter, cat, after)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL plans")
def test_a_later_page_walks_the_sort_index_even_under_a_generic_plan():
    """A later page (keyset position, no filter) is one ordered walk of a sort_key index
    from the position, with no sort of the rows after it, even in the generic plan that
    `plan_cache_mode=force_generic_plan` (config/settings.py) gives every prepared statement:
    the range-plus-OR form got a generic plan that read and sorted every row after the
    position (7–46 ms a page at 10,000 terms, issue 16)."""
    from psycopg.sql import Literal

    now = timezone.now() - timedelta(days=1)
    # A fresh table (TRUNCATE is undone with the test's transaction): the plan is judged on
    # these rows, not on the dead rows earlier tests left behind.
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE glossary_term CASCADE")
    Term.objects.bulk_create(
        Term(name=f"Pojęcie {i:05}", slug=f"p-{i:05}", sort_key=f"p{i:05}", letter="P",
             short_definition="Krótka.", status=Status.PUBLISHED, published_at=now)
        for i in range(3000)
    )  # fmt: skip
    connection.ensure_connection()
    driver = connection.connection  # psycopg's own connection: PREPARE needs no Django
    driver.execute("ANALYZE glossary_term", prepare=False)  # the planner sees 3,000 rows
    selectors.term_page(after=("a", 0), limit=50)
    sql, roles, _convert = selectors._TERM_PAGES.get((False, False, True, 50)).compiled_for(
        connections[DEFAULT_DB_ALIAS]
    )
    values = {"now": timezone.now(), "key": "p01500", "pk": 0}
    params = [values[role] if role else value for role, value in roles]
    literals = ", ".join(Literal(value).as_string(driver) for value in params)
    driver.execute("SET LOCAL plan_cache_mode = force_generic_plan", prepare=False)
    driver.execute("PREPARE later_page AS " + _numbered(sql), prepare=False)
    explained = driver.execute(f"EXPLAIN EXECUTE later_page({literals})", prepare=False)
    plan = "\n".join(row[0] for row in explained.fetchall())
    driver.execute("DEALLOCATE later_page", prepare=False)
    nodes = [line.strip().removeprefix("->  ").split("  (")[0] for line in plan.splitlines()]
    assert nodes[0] == "Limit", plan
    # Ordered by an index on sort_key from the position: at most an incremental sort of the
    # ties, never a sort of every row after it.
    assert "Sort" not in nodes, plan
    assert any(n.startswith("Index Scan using glossary_term_sort") for n in nodes), plan
    assert any("Index Cond" in line and "sort_key" in line for line in plan.splitlines()), plan


def _numbered(sql: str) -> str:
    """`%s` placeholders as PREPARE's `$1, $2, …`."""
    parts = sql.split("%s")
    return "".join(part + (f"${i}" if i < len(parts) else "") for i, part in enumerate(parts, 1))


# sha256 of the Django 5.2 `BaseDatabaseWrapper._cursor` that glossary.db.cursors.kept_cursor
# mirrors.
CURSOR = "bb632516d005185c3f44250b3224b6cfbc0a8869ab80d1a045a78a62e11cc347"


def test_djangos_cursor_is_the_one_mirrored():
    """If this fails, Django changed BaseDatabaseWrapper._cursor: bring
    glossary.db.cursors.kept_cursor (which keeps one driver cursor per connection) in line, then
    update CURSOR."""
    import hashlib
    import inspect

    from django.db.backends.base.base import BaseDatabaseWrapper

    source = inspect.getsource(BaseDatabaseWrapper._cursor)
    assert hashlib.sha256(source.encode()).hexdigest() == CURSOR


def test_prepared_reads_reuse_their_driver_cursor_and_follow_a_new_connection():
    """A prepared read runs on a driver cursor kept per connection and statement (still
    counted by query capture), which keeps psycopg's adapters even when other reads ran in
    between; once the driver connection they belong to is gone (a reconnect), fresh cursors
    are made on the new one."""
    from django.db import DEFAULT_DB_ALIAS, connections
    from django.test.utils import CaptureQueriesContext

    from glossary.db import cursors

    connection = connections[DEFAULT_DB_ALIAS]
    cursors._CURSORS.pop(connection, None)  # as a fresh process: no statement kept yet
    term = make_term("Gniazdo")
    selectors.term_detail(slug=term.slug)
    before = dict(cursors._CURSORS[connection][1].items())
    selectors.term_page()  # other statements in between
    with CaptureQueriesContext(connection) as ctx:
        assert selectors.term_detail(slug=term.slug).term.pk == term.pk
    assert len(ctx.captured_queries) == 1
    kept = cursors._CURSORS[connection][1]
    after = dict(kept.items())
    assert all(after[text] is cursor for text, cursor in before.items())
    assert len(after) > len(before)  # the page's statements got cursors of their own
    cursors._CURSORS[connection] = (object(), kept)  # as if the driver had reconnected
    assert selectors.term_detail(slug=term.slug).term.pk == term.pk
    renewed = dict(cursors._CURSORS[connection][1].items())
    assert cursors._CURSORS[connection][1] is not kept
    assert not set(map(id, renewed.values())) & set(map(id, after.values()))


def test_kept_cursors_are_bounded_per_connection(monkeypatch):
    """At most MAX_KEPT_CURSORS statement texts keep a driver cursor per connection; one
    more lets the least recently used one go (closed), so distinct statements cannot pile up
    cursors."""
    from glossary.db import cursors

    monkeypatch.setattr(cursors, "MAX_KEPT_CURSORS", 2)
    connection = connections[DEFAULT_DB_ALIAS]
    cursors._CURSORS.pop(connection, None)
    texts = [f"SELECT {n}" for n in range(3)]
    wrappers = [cursors.kept_cursor(connection, text) for text in texts[:2]]
    first = [w.cursor for w in wrappers]
    assert cursors.kept_cursor(connection, texts[0]).cursor is first[0]  # now the most recent
    third = cursors.kept_cursor(connection, texts[2])
    third.execute(texts[2])
    assert third.fetchone() == (2,)
    assert _closed(first[1]) and not _closed(first[0])
    assert [text for text, _cursor in cursors._CURSORS[connection][1].items()] == [
        texts[0],
        texts[2],
    ]


def _closed(cursor) -> bool:
    """Whether a driver cursor was closed (psycopg says so; sqlite3 refuses to run)."""
    import sqlite3

    if hasattr(cursor, "closed"):
        return cursor.closed
    try:
        cursor.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return True
    return False


def test_joined_texts_are_one_object_per_parts_and_bounded(monkeypatch):
    """`joined` gives the same text object for the same parts (psycopg keeps a cursor's
    adapters only for the same query object), and keeps at most MAX_JOINED of them."""
    from glossary.db import cursors
    from glossary.db.cache import LRU

    monkeypatch.setattr(cursors, "_JOINED", LRU(3))
    first = cursors.joined("SELECT ", "1")
    assert first == "SELECT 1" and cursors.joined("SELECT ", "1") is first
    for n in range(2, 6):
        assert cursors.joined("SELECT ", str(n)) == f"SELECT {n}"
    assert len(cursors._JOINED) == 3


def test_categories_are_compiled_once_and_match_the_queryset(django_assert_num_queries):
    """selectors.categories() (list_terms resolves its filter against it on every call) is
    compiled ahead although it has no clock, and returns the QuerySet's rows in one query."""
    from django.db import connections as all_connections

    from glossary.models import Category

    for name in ("Sieci", "Agenci AI", "Bazy"):
        make_category(name)
    with django_assert_num_queries(1):
        rows = selectors.categories()
    assert rows == list(Category.objects.order_by("name").values_list("slug", "name"))
    assert selectors._CATEGORIES.compiled_for(all_connections[DEFAULT_DB_ALIAS]) is not None


def test_an_offset_inside_a_subquery_becomes_a_parameter_in_its_place(
    django_assert_num_queries,
):
    """A deferred join (`pk__in` a sliced select of ids, api/queries.py) compiles its OFFSET,
    which sits inside the subquery among other parameters, into a parameter at that position:
    every page is one statement, and each page holds that slice of the order."""
    from django.db import DEFAULT_DB_ALIAS, connections

    from glossary.db.placeholders import stand_in
    from glossary.db.prepared import Prepared

    for name in ("Agent", "Bufor", "Cache", "Dane", "Encja", "Format"):
        make_term(name)
    make_draft_term("Gniazdo")

    def build(*, now, offset, letter):
        terms = Term.objects.published(now=now).exclude(letter=letter).order_by("sort_key")
        return terms.filter(pk__in=terms.values("pk")[offset : offset + 2]).values("name")

    page = Prepared(build, offset=987_654_321, letter=stand_in(str))
    names = [[row["name"] for row in page(offset=start, letter="Z")] for start in (0, 2, 4)]
    assert names == [["Agent", "Bufor"], ["Cache", "Dane"], ["Encja", "Format"]]
    sql, roles, _convert = page.compiled_for(connections[DEFAULT_DB_ALIAS])
    assert sql.count("OFFSET %s") == 1 and "987654321" not in sql
    assert [role for role, _value in roles].count("offset") == 1


TERM_ROW = ("id", "status", "published_at", "updated_at", "name", "slug", "body_html")
ARTICLE_ROW = ("id", "status", "published_at", "title", "slug", "series_id", "series_order")


def test_entry_with_links_matches_the_row_and_the_links_reads():
    """A term's row with its links in one statement equals its `values()` row and what
    `term_links` gives readers: the same categories, published related terms and published
    articles, in the same order (articles newest first, equal dates by id, descending)."""
    from glossary.models import Article

    term = make_term("Serwer")
    term.categories.add(make_category("Sieci"), make_category("Architektura"))
    term.related.add(make_term("Klient"), make_term("Agent"), make_draft_term("Szkic"))
    same_time = timezone.now() - timedelta(hours=1)
    for title in ("Pierwszy", "Drugi", "Trzeci"):
        make_article(title=title, terms=[term], published_at=same_time)
    make_article(title="Najnowszy", terms=[term])
    hidden = make_article(title="Ukryty", terms=[term])
    Article.objects.filter(pk=hidden.pk).update(status=Status.DRAFT)
    lonely = make_term("Samotny")
    for entry in (term, lonely):
        for _ in range(2):  # the second call runs the cached statement
            row, links, _state = selectors.entry_with_links(
                model=Term, pk=entry.pk, fields=TERM_ROW
            )
            assert row == Term.objects.filter(pk=entry.pk).values(*TERM_ROW).get()
            assert links == selectors.term_links(pks=[entry.pk])[entry.pk]
    _row, links, _state = selectors.entry_with_links(model=Term, pk=term.pk, fields=TERM_ROW)
    assert [link.title for link in links.related] == ["Agent", "Klient"]
    titles = [link.title for link in links.articles]
    assert titles == ["Najnowszy", "Trzeci", "Drugi", "Pierwszy"]


def test_entry_with_links_of_an_article_names_its_series():
    """An article's row with its published terms and its series (the series itself, as
    `article_links` gives it), with and without a series."""
    from glossary.models import Article, Series

    used, other = make_term("Klient"), make_term("Serwer")
    draft = make_draft_term("Szkic")
    series = Series.objects.create(name="Seria", slug="seria", description="O serii.")
    first = make_article(title="Pierwszy", terms=[used, other, draft])
    Article.objects.filter(pk=first.pk).update(series=series, series_order=1)
    second = make_article(title="Drugi", terms=[used])
    Article.objects.filter(pk=second.pk).update(series=series, series_order=2)
    alone = make_article(title="Samotny")
    for article in (first, second, alone):
        for _ in range(2):
            row, links, _state = selectors.entry_with_links(
                model=Article, pk=article.pk, fields=ARTICLE_ROW
            )
            assert row == Article.objects.filter(pk=article.pk).values(*ARTICLE_ROW).get()
            assert links == selectors.article_links(pks=[article.pk])[article.pk]
    _row, links, _state = selectors.entry_with_links(model=Article, pk=first.pk, fields=ARTICLE_ROW)
    assert [(x.kind, x.title, x.summary) for x in links.series] == [("series", "Seria", "O serii.")]
    assert [x.title for x in links.terms] == ["Klient", "Serwer"]


def test_entry_with_links_shows_published_entries_only(monkeypatch):
    """Drafts, entries scheduled for later and unknown ids are None; a scheduled entry
    appears once its time comes, although the statement was compiled before."""
    future = make_future_term("Jutro")
    for pk in (make_draft_term("Szkic").pk, future.pk, 987_654):
        assert selectors.entry_with_links(model=Term, pk=pk, fields=TERM_ROW) is None
    later = timezone.now() + timedelta(days=8)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert selectors.entry_with_links(model=Term, pk=future.pk, fields=TERM_ROW) is not None


@pytest.mark.parametrize("state", [False, True])
@pytest.mark.parametrize("model, fields", [("Term", TERM_ROW), ("Article", ARTICLE_ROW)])
def test_entry_with_links_is_one_compiled_statement(
    model, fields, state, django_assert_num_queries
):
    """The row and its links (and, asked for, the content state) are one statement, and the
    compiled path is the one taken (not the silent fallback of glossary/db/prepared.py)."""
    from glossary import models

    model = getattr(models, model)
    entry = make_term("Serwer") if model is Term else make_article(title="Artykuł")
    selectors.entry_with_links(model=model, pk=entry.pk, fields=fields, state=state)
    with django_assert_num_queries(1):
        found = selectors.entry_with_links(model=model, pk=entry.pk, fields=fields, state=state)
    assert found is not None and (found[2] is not None) is state
    prepared = selectors._ENTRY_ROWS.get((model, fields, state))
    compiled = prepared.compiled_for(connections[DEFAULT_DB_ALIAS])
    assert compiled is not None, "entry_with_links fell back to evaluating its QuerySet"
    assert {"now", "pk"} <= {role for role, _value in compiled[1]}


def test_the_state_read_with_an_entry_is_the_content_state(monkeypatch):
    """The content state read in an entry's statement (`with_content_state`) equals what
    `content_state()` returns, value for value, on either database (the ETag of a REST
    detail is keyed by the one, a conditional request compared with the other), and follows
    an edit and a scheduled publication; the row itself is what it is without the state."""
    term = make_term("Serwer")
    make_future_term("Jutro")
    for _ in range(2):  # the second call runs the cached statement
        row, links, state = selectors.entry_with_links(
            model=Term, pk=term.pk, fields=TERM_ROW, state=True
        )
        assert state == selectors.content_state() and state is not None
        assert (row, links, None) == selectors.entry_with_links(
            model=Term, pk=term.pk, fields=TERM_ROW
        )
    Term.objects.filter(pk=term.pk).update(name="Serwer HTTP")
    _row, _links, edited = selectors.entry_with_links(
        model=Term, pk=term.pk, fields=TERM_ROW, state=True
    )
    assert edited != state and edited == selectors.content_state()
    later = timezone.now() + timedelta(days=8)
    monkeypatch.setattr(timezone, "now", lambda: later)
    _row, _links, published = selectors.entry_with_links(
        model=Term, pk=term.pk, fields=TERM_ROW, state=True
    )
    assert published != edited and published == selectors.content_state()


@pytest.mark.parametrize("full", [True, False])
def test_rows_with_links_match_the_links_reads(full):
    """A page of rows read with their links (`with_entry_links`, as a REST list reads them)
    gives each row what `term_links`/`article_links` give readers: all of it for `_embed`
    (`full`), else the same ids in the same order (`EntryIds`); the columns leave the row."""
    from glossary.models import Article

    term = make_term("Serwer")
    term.categories.add(make_category("Sieci"), make_category("Architektura"))
    term.related.add(make_term("Klient"), make_term("Agent"), make_draft_term("Szkic"))
    make_article(title="Pierwszy", terms=[term, make_draft_term("Ukryte")])
    make_article(title="Drugi", terms=[term])
    now = timezone.now()
    for model, fields, links_of in (
        (Term, TERM_ROW, selectors.term_links),
        (Article, ARTICLE_ROW, selectors.article_links),
    ):
        rows = model.objects.published(now=now).order_by("id")
        read = selectors.with_entry_links(rows, model=model, now=now, full=full).values(
            *fields, *selectors.link_columns(model, full=full)
        )
        pks = list(rows.values_list("pk", flat=True))
        expected = links_of(pks=pks)
        for values in read:
            links = selectors.links_from_row(values, model=model, full=full)
            assert values == model.objects.filter(pk=values["id"]).values(*fields).get()
            if full:
                assert links == expected[values["id"]]
            else:
                for bucket in ("categories", "related") if model is Term else ("terms",):
                    assert links.ids(bucket) == expected[values["id"]].ids(bucket)
    assert selectors.term_links(pks=[term.pk])[term.pk].ids("related") == [
        t.pk for t in Term.objects.filter(name__in=["Agent", "Klient"]).order_by("sort_key")
    ]
