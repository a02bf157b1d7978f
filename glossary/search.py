"""The one search engine behind every entry point: the reader search page, the MCP tools
`search_term`/`search_articles`, `completion/complete`, "did you mean" suggestions of
`get_term` and the admin search box. Callers only see the functions below.

This is the portable baseline (folded substring matching on normalized columns, ranked by
where the match is). It works identically on SQLite and PostgreSQL.
"""

import difflib
from dataclasses import dataclass, field

from django.db.models import Case, IntegerField, Q, Value, When

from .models import Article, Term
from .polish import fold

MAX_QUERY_LENGTH = 200


@dataclass(frozen=True)
class Hit:
    kind: str  # "term" | "article"
    id: int
    slug: str
    title: str
    summary: str
    score: float


@dataclass
class SearchResults:
    query: str
    terms: list[Hit] = field(default_factory=list)
    articles: list[Hit] = field(default_factory=list)
    suggestions: list[Hit] = field(default_factory=list)
    exact: Hit | None = None


def normalize_query(query: str) -> str:
    return fold(query or "")[:MAX_QUERY_LENGTH]


def term_search(*, query: str, limit: int = 10) -> list[Hit]:
    """Published terms matching `query`, best first (1 query)."""
    q = normalize_query(query)
    if not q:
        return []
    words = q.split()
    match = Q()
    for word in words:
        match &= Q(search_text__contains=word)
    rank = Case(
        When(name_folded=q, then=Value(100)),
        When(search_text__contains=f" {q} ", then=Value(80)),
        When(name_folded__startswith=q, then=Value(60)),
        When(name_folded__contains=q, then=Value(40)),
        default=Value(20),
        output_field=IntegerField(),
    )
    rows = (
        Term.objects.published()
        .filter(match)
        .annotate(rank=rank)
        .order_by("-rank", "sort_key", "id")
        .values_list("id", "slug", "name", "short_definition", "rank")[:limit]
    )
    return [Hit("term", pk, slug, name, short, rank / 100) for pk, slug, name, short, rank in rows]


def article_search(*, query: str, limit: int = 10) -> list[Hit]:
    """Published articles matching `query` in title or lead, best first (1 query)."""
    q = normalize_query(query)
    if not q:
        return []
    match = Q()
    for word in q.split():
        match &= Q(search_text__contains=word)
    rows = (
        Article.objects.published()
        .filter(match)
        .order_by("-published_at", "-id")
        .values_list("id", "slug", "title", "lead")[:limit]
    )
    return [Hit("article", pk, slug, title, lead, 0.5) for pk, slug, title, lead in rows]


def suggest_terms(*, text: str, limit: int = 3) -> list[Hit]:
    """Closest published term names or slugs to `text`, for "did you mean" (1 query)."""
    q = normalize_query(text)
    if not q:
        return []
    rows = list(Term.objects.published().values_list("id", "slug", "name", "short_definition"))
    keys = {}
    for row in rows:
        keys.setdefault(row[1], row)
        keys.setdefault(fold(row[2]), row)
    best = difflib.get_close_matches(q, list(keys), n=limit * 2, cutoff=0.5)
    out, seen = [], set()
    for key in best:
        row = keys[key]
        if row[0] not in seen:
            seen.add(row[0])
            out.append(Hit("term", row[0], row[1], row[2], row[3], 0.0))
    return out[:limit]


def complete_term_slugs(*, prefix: str, limit: int = 100) -> list[str]:
    """Published term slugs starting with `prefix` (folded), for argument completion."""
    p = normalize_query(prefix).replace(" ", "-")
    qs = Term.objects.published().order_by("slug").values_list("slug", flat=True)
    if p:
        qs = qs.filter(slug__startswith=p)
    return list(qs[:limit])


def complete_article_slugs(*, prefix: str, limit: int = 100) -> list[str]:
    p = normalize_query(prefix).replace(" ", "-")
    qs = Article.objects.published().order_by("slug").values_list("slug", flat=True)
    if p:
        qs = qs.filter(slug__startswith=p)
    return list(qs[:limit])


def search(*, query: str, limit: int = 20) -> SearchResults:
    """Everything the search page shows for `query`."""
    results = SearchResults(query=query)
    if not normalize_query(query):
        return results
    results.terms = term_search(query=query, limit=limit)
    results.articles = article_search(query=query, limit=limit)
    if results.terms and results.terms[0].score >= 1.0:
        results.exact = results.terms[0]
    if not results.terms and not results.articles:
        results.suggestions = suggest_terms(text=query)
    return results
