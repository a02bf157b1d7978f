"""Lists of entries: the A–Z index and its keyset pages, categories, series, latest articles,
and the whole texts for agents (/llms-full.txt)."""

from datetime import datetime

from django.db.models import CharField, F, Func, Value
from django.db.models.lookups import GreaterThan

from ..db.cache import LRU
from ..db.placeholders import stand_ins
from ..db.prepared import Prepared
from ..models import Article, Category, Series, Term
from ..polish import INDEX_LETTERS, OTHER_LETTER

TERM_CARD_FIELDS = ("id", "name", "slug", "short_definition", "letter", "updated_at")
# What a keyset page (`term_page`: MCP list_terms, resources/list) shows and pages by: no
# timestamp, whose conversion is a fifth of a page's Python (docs/benchmarks.md, "Cold reads").
TERM_PAGE_FIELDS = ("id", "name", "slug", "short_definition", "sort_key")


def term_index(
    *, letter: str | None = None, category: str | None = None, now: datetime | None = None
):
    """Published terms in Polish alphabetical order, as light rows for lists (1 query)."""
    qs = Term.objects.published(now=now)
    if letter:
        qs = qs.filter(letter=letter.upper())
    if category:
        qs = qs.filter(categories__slug=category)
    return qs.order_by("sort_key", "id").values(*TERM_CARD_FIELDS, "sort_key")


def categories() -> list[tuple[str, str]]:
    """Every category as (slug, name), by name (1 query, compiled once: list_terms asks on
    every call, and building the QuerySet is most of a first page's Python)."""
    return _CATEGORIES()


_CATEGORIES = Prepared(
    lambda *, now: Category.objects.order_by("name").values_list("slug", "name"), clock=False
)


def term_page(
    *,
    letter: str | None = None,
    category: str | None = None,
    after: tuple[str, int] | None = None,
    limit: int = 50,
) -> list[dict]:
    """One keyset page of `term_index` after `(sort_key, id)`, as `TERM_PAGE_FIELDS` rows;
    fetches `limit + 1` rows so the caller knows whether another page exists."""
    shape = (letter is not None and letter != "", bool(category), after is not None, limit)
    prepared = _TERM_PAGES.get(shape)
    if prepared is None:
        used = {"letter": shape[0], "category": shape[1], "key": shape[2], "pk": shape[2]}
        marks = stand_ins(letter=str, category=str, key=str, pk=int)
        marks = {name: mark for name, mark in marks.items() if used[name]}

        def build(*, now, letter=None, category=None, key=None, pk=None):
            qs = term_index(letter=letter, category=category, now=now)
            if key is not None:
                # A row comparison `(sort_key, id) > (key, pk)`: the (sort_key, id) index
                # starts at the position and yields the page in order whatever the values.
                # Why: the statement is prepared, and under `plan_cache_mode=force_generic_plan`
                # (config/settings.py) the range-plus-OR form got a generic plan that read
                # and sorted every published row after the position (docs/benchmarks.md,
                # "Cold reads"). SQLite has row values too.
                qs = qs.filter(GreaterThan(_row(F("sort_key"), F("id")), _row(key, pk)))
            return qs.values(*TERM_PAGE_FIELDS)[: limit + 1]

        prepared = _TERM_PAGES.setdefault(shape, Prepared(build, **marks))
    values = {}
    if shape[0]:
        values["letter"] = letter.upper()
    if shape[1]:
        values["category"] = category
    if after is not None:
        values["key"], values["pk"] = after
    return prepared(**values)


def _row(*values):
    """`(a, b)`: a row value (PostgreSQL, SQLite ≥ 3.15) for a row comparison."""
    items = [v if hasattr(v, "resolve_expression") else Value(v) for v in values]
    return Func(*items, function="", output_field=CharField())


# term_page's statement per shape (letter, category, after, limit): compiled once
# (glossary/db/prepared.py), as building the filtered keyset QuerySet costs more than running it.
_TERM_PAGES = LRU(1024)


def index_letters(rows) -> list[tuple[str, bool]]:
    """The A–Z navigation: every Polish letter (plus '#'), flagged when it has entries."""
    present = {row["letter"] for row in rows}
    letters = [(letter, letter in present) for letter in INDEX_LETTERS]
    if OTHER_LETTER in present:
        letters.append((OTHER_LETTER, True))
    return letters


def category_detail(*, slug: str) -> tuple[Category, list[dict]] | None:
    """A category and its published terms in Polish alphabetical order (2 queries)."""
    category = Category.objects.filter(slug=slug).first()
    if category is None:
        return None
    return category, list(term_index(category=slug))


def series_detail(*, slug: str) -> tuple[Series, list[Article]] | None:
    """A series and its published articles in series order (2 queries)."""
    series = Series.objects.filter(slug=slug).first()
    if series is None:
        return None
    articles = list(
        Article.objects.published()
        .filter(series=series)
        .select_related("author")
        .order_by("series_order", "id")
        .defer("body", "body_html", "linked_html", "search_text")
    )
    return series, articles


def categories_with_terms():
    """Categories that have a published term (for the sitemap)."""
    return Category.objects.filter(terms__in=Term.objects.published()).distinct().order_by("slug")


def series_with_articles():
    """Series that have a published article (for the sitemap)."""
    return (
        Series.objects.filter(articles__in=Article.objects.published()).distinct().order_by("slug")
    )


def article_list():
    """Published articles, newest first, with author and series (1 query)."""
    return (
        Article.objects.published()
        .select_related("author", "series")
        .order_by("-published_at", "-id")
        .defer("body", "body_html", "linked_html", "search_text")
    )


def latest_articles(*, limit: int = 5):
    return article_list()[:limit]


def recently_updated_terms(*, limit: int = 8):
    return Term.objects.published().order_by("-updated_at", "-id").values(*TERM_CARD_FIELDS)[:limit]


# --- Whole texts for agents (/llms-full.txt: glossary/llms.py) -----------------------------
def term_texts():
    """Every published term with its displayed body, in Polish alphabetical order (1 query)."""
    return (
        Term.objects.published()
        .order_by("sort_key", "id")
        .only("name", "slug", "short_definition", "synonyms", "body_html", "linked_html")
    )


def article_texts():
    """Every published article with its displayed body, newest first (1 query)."""
    return (
        Article.objects.published()
        .order_by("-published_at", "-id")
        .only("title", "slug", "lead", "body_html", "linked_html", "published_at")
    )
