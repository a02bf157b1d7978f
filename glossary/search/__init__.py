"""The one search engine behind every entry point: the reader search page and its suggestions,
the MCP tools `search_term`/`search_articles`, `completion/complete`, the "did you mean"
suggestions of `get_term` and the admin search box. Callers only see the names below.

Design, in four parts:
- `query`: a query is parsed once. Question frames and stop words go (in every inflected
  form, without diacritics, with typos), a comparison is split into its two sides, and the
  stems, typo keys and patterns of the remaining words are computed here and nowhere else.
- `ranking`: the tiers, best first (exact name, exact synonym, name or synonym prefix, all
  words in the names, all words in the names with typos, coverage), and the coverage score
  (BM25-like: each word's best field weighted by its idf). Both engines take them from there;
  the SQL `CASE` is generated from that list.
- `postgres`: one statement per search whose text is fixed per shape (short, one side, two
  sides), built once per connection; candidates from indexes only, capped, then ranked.
- `sqlite`: the same ranking in Python over the rows a `LIKE` prefilter finds.
Highlighted snippets are computed only when a caller reads `Hit.snippet` (the page does, the
MCP tools do not). The derived columns they read are computed in Python by
`refresh_derived()`, so save, bulk import and both databases see the same text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache

from django.db import connection
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL
from django.utils import timezone
from django.utils.safestring import SafeString
from rapidfuzz.distance import OSA

from ..db.cursors import joined
from ..models import Article, Term
from ..polish import fold
from ..stemming import stem, words
from . import postgres, ranking, semantic, sqlite, statements
from .query import MAX_QUERY_LENGTH, MAX_QUERY_WORDS, Query, highlight, normalize_query

__all__ = [
    "MAX_QUERY_LENGTH",
    "MAX_QUERY_WORDS",
    "Answer",
    "Hit",
    "Query",
    "SearchResults",
    "article_search",
    "closest_article_slugs",
    "closest_articles",
    "closest_term_slugs",
    "closest_terms",
    "complete_article_slugs",
    "complete_term_slugs",
    "find_articles",
    "find_terms",
    "highlight",
    "matching_terms",
    "normalize_query",
    "ranked_ids",
    "search",
    "suggest_terms",
    "term_search",
]

MAX_LIMIT = 100


@dataclass(frozen=True)
class Hit:
    kind: str  # "term" | "article"
    id: int
    slug: str
    title: str
    summary: str
    score: float
    match: str = ""  # which tier matched: "name", "synonym", "prefix", "words", "fuzzy", ...
    query: Query | None = field(default=None, repr=False, compare=False)
    # A guess, not a match: the entry has too little of the query's weight (`ranking.weak`),
    # or the engine found nothing and this is the closest candidate (`find_terms`).
    weak: bool = False

    @property
    def snippet(self) -> SafeString:
        """The summary escaped, with the words the query matched in <mark> (computed on
        first use: the MCP tools never read it)."""
        cached = self.__dict__.get("_snippet")
        if cached is None:
            cached = highlight(self.summary, self.query or Query(""))
            object.__setattr__(self, "_snippet", cached)
        return cached


@dataclass
class Answer:
    """What a caller that must never answer with nothing gets (`find_terms`, `find_articles`):
    the hits, whether they are guesses (`weak`: no hit matches the query well, so these are
    the closest candidates), and the query as the engine read it when it corrected words
    (`did_you_mean`, with `corrections` from each typed word to its reading)."""

    query: str
    hits: list[Hit] = field(default_factory=list)
    weak: bool = False
    did_you_mean: str = ""
    corrections: dict[str, str] = field(default_factory=dict)


@dataclass
class SearchResults:
    query: str
    terms: list[Hit] = field(default_factory=list)
    articles: list[Hit] = field(default_factory=list)
    suggestions: list[Hit] = field(default_factory=list)
    exact: Hit | None = None
    comparison: list[str] = field(default_factory=list)  # the compared sides' texts
    # As in `Answer`: the terms are guesses; the query as the engine corrected it.
    weak: bool = False
    did_you_mean: str = ""
    corrections: dict[str, str] = field(default_factory=dict)


def _limit(limit) -> int:
    try:
        return max(1, min(int(limit), MAX_LIMIT))
    except (TypeError, ValueError):
        return 10


def _postgres() -> bool:
    return connection.vendor == "postgresql"


# A tier's label as the MCP tools and the page show it; articles call the name their title.
_TERM_LABELS = dict(ranking.LABELS)
_ARTICLE_LABELS = {
    rank: {"name": "title", "words": "title"}.get(label, label)
    for rank, label in ranking.LABELS.items()
}


def _hits(kind: str, q: Query, rows, *, article: bool = False) -> list[Hit]:
    labels = _ARTICLE_LABELS if article else _TERM_LABELS
    words = list(range(len(q.words)))
    coverage, score, weak = ranking.COVERAGE, ranking.score, ranking.weak
    out = []
    for pk, slug, title, summary, rank, value, close, levels in rows:
        if rank == coverage:
            match = ranking.coverage_label(levels or [], words, article=article)
        else:
            match, value = labels.get(rank, ""), close
        hit = Hit(kind, pk, slug, title, summary, score(rank, value), match, q, weak(rank, value))
        object.__setattr__(hit, "levels", tuple(levels or ()))
        out.append(hit)
    return out


def term_search(*, query: str, limit: int = 10) -> list[Hit]:
    """Published terms matching `query`, best first, with score and tier (1 query; with the
    semantic arm on, 2 when the words matched no name: see `_with_meaning`)."""
    return _term_hits(Query(query), query, limit)


def _term_hits(q: Query, query: str, limit) -> list[Hit]:
    """`term_search` of an already parsed query."""
    if not q:
        return []
    limit = _limit(limit)
    meaning = semantic.enabled()
    pool = max(limit, MEANING_POOL) if meaning else limit
    if _postgres():
        rows = postgres.rows(statements.TERMS, q, pool, timezone.now())
    else:
        rows = sqlite.term_rows(q, pool)
    hits = _hits("term", q, rows)
    if meaning and _uncertain(hits):
        hits = _with_meaning(query, q, hits)
    return hits[:limit]


# The semantic arm (glossary/search/semantic.py, off unless configured) reranks the answers
# whose best hit is a guess, or that have none: a name the query names stays first. How many
# lexical hits it reranks (and closest terms in meaning it adds) and the lexical score's share
# of the blend (measured on the relevance suites: docs/benchmarks.md, "Search by meaning").
MEANING_POOL = 20
MEANING_LEXICAL_SHARE = 0.35


def _uncertain(hits: list[Hit]) -> bool:
    """Whether the words alone leave the answer open: no hit, or a best hit that is a guess
    (`ranking.weak`: it matched only in texts, and too little of the query's weight)."""
    return not hits or hits[0].weak


def _with_meaning(query: str, q: Query, hits: list[Hit]) -> list[Hit]:
    """`hits` and the terms closest in meaning to `query`, ordered by a blend of the two:
    `MEANING_LEXICAL_SHARE` of the lexical score (relative to the best) and the rest of the
    closeness in meaning (z-score relative to the best). A term found by meaning alone is a
    weak hit ("meaning"): the agent learns that no word of its query named it."""
    closeness = semantic.meaning(query)
    if closeness is None:
        return hits
    by_id = {h.id: h for h in hits}
    for at in closeness.best(MEANING_POOL):
        pk = closeness.ids[at]
        if pk not in by_id:
            slug, name, short = closeness.shown[at]
            by_id[pk] = Hit("term", pk, slug, name, short, 0.0, "meaning", q, weak=True)
    lexical_top = max((h.score for h in hits), default=0.0) or 1.0
    z = {pk: closeness.of(pk) for pk in by_id}
    z_top = max(max(z.values()), 1e-9)
    share = MEANING_LEXICAL_SHARE
    blended = {
        pk: share * (h.score / lexical_top) + (1 - share) * max(z[pk], 0.0) / z_top
        for pk, h in by_id.items()
    }
    order = sorted(by_id, key=lambda pk: -blended[pk])
    # Scores stay in the coverage tier's band, in the new order.
    return [replace(by_id[pk], score=ranking.score(ranking.COVERAGE, blended[pk])) for pk in order]


def article_search(*, query: str, limit: int = 10) -> list[Hit]:
    """Published articles matching `query`: title, then lead, then body (1 query)."""
    q = Query(query)
    if not q:
        return []
    limit = _limit(limit)
    if _postgres():
        rows = postgres.rows(statements.ARTICLES, q, limit, timezone.now())
    else:
        rows = sqlite.article_rows(q, limit)
    return _hits("article", q, rows, article=True)


def ranked_ids(*, kind: str, query: str, limit: int = MAX_LIMIT) -> list[int]:
    """The ids `term_search` (`kind="term"`) or `article_search` (`"article"`) returns for
    `query`, in the same order, without building their hits (1 query). For callers that
    need the whole ranked window only to count and slice it (the REST API's `?search=`
    lists): scores, labels and snippets of 100 hits cost a third of the search."""
    q = Query(query)
    if not q:
        return []
    limit = _limit(limit)
    article = kind == "article"
    if _postgres():
        table = statements.ARTICLES if article else statements.TERMS
        rows = postgres.rows(table, q, limit, timezone.now())
    else:
        rows = sqlite.article_rows(q, limit) if article else sqlite.term_rows(q, limit)
    return [row[0] for row in rows]


def ranked_ids_statement(*, kind: str, query: str, limit: int = MAX_LIMIT):
    """PostgreSQL: `SELECT ARRAY(…)` of the ids `ranked_ids` returns, in the same order, as
    SQL text and parameters, for a caller that reads them inside a statement of its own
    (the REST API's `?search=` pages read the page in the same statement). None when the
    search must run on its own (SQLite, an empty query, planner statistics to refresh):
    then `ranked_ids`."""
    q = Query(query)
    if not q or not _postgres():
        return None
    table = statements.ARTICLES if kind == "article" else statements.TERMS
    found = postgres.ranked_statement(table, q, _limit(limit), timezone.now())
    if found is None:
        return None
    sql, params = found
    return _ids_array(sql), params


def _ids_array(sql: str) -> str:
    """The engine's rows' ids in its order (a subquery scan keeps the order of its ORDER BY),
    as one array; one text object per engine statement (`prepared.joined`)."""
    return joined("SELECT ARRAY(SELECT e.id FROM (", sql, ") e) AS ids")


def matching_terms(*, queryset, query: str):
    """`queryset` (any terms, drafts included: the admin's search box) narrowed to the terms
    the engine matches for `query`, without caps or ranking; the caller orders the list."""
    q = Query(query)
    if not q:
        return queryset.none()
    if _postgres():
        sql, params = postgres.match_condition(q)
        return queryset.filter(RawSQL(sql, params, BooleanField()))  # noqa: S611 - our SQL
    ids = [row[0] for row in sqlite.term_rows(q, sqlite.ADMIN_LIMIT, base=queryset.order_by())]
    return queryset.filter(id__in=ids)


# --- Suggestions and completion -----------------------------------------------------------


def suggest_terms(*, text: str, limit: int = 3) -> list[Hit]:
    """Published terms whose name or a synonym is closest to `text` (a query or a mistyped
    slug), for "did you mean": similar names (trigrams), names a typo away, and names with a
    word beginning like a word of the text (its first `query.GUESS_PREFIX` letters:
    "agentowość" -> Agent), closest first (1 query; trigram index on PostgreSQL)."""
    q = Query((text or "").replace("-", " ") if isinstance(text, str) else "")
    if not q:
        return []
    limit = _limit(limit)
    if _postgres():
        rows = postgres.similar_names(q, limit, timezone.now())
    else:
        rows = sqlite.similar_names(q, limit)
    return [
        Hit("term", pk, slug, name, short, round(min(c, 0.99), 4), "fuzzy", q)
        for pk, slug, name, short, c in rows
    ]


# "Did you mean" for a mistyped slug (get_term, get_article, resources, prompts): a slug
# within this many edits (a swap of two letters counts as one) of the typed one.
SLUG_EDITS = 2


def _near(model, text: str, limit: int) -> list[Hit]:
    """Published entries whose slug is within SLUG_EDITS edits of `text`, closest first (1
    query): catches short typos no word-based search can ("mpc" -> mcp). The hits carry the
    slug and the name (or title), no summary."""
    from rapidfuzz.distance import OSA
    from rapidfuzz.process import extract

    from ..polish import polish_slugify

    typed = polish_slugify(text)
    if not typed:
        return []
    title = "title" if model is Article else "name"
    rows = {
        slug: (pk, name)
        for pk, slug, name in model.objects.published().values_list("id", "slug", title)
    }
    found = extract(typed, list(rows), scorer=OSA.distance, score_cutoff=SLUG_EDITS, limit=limit)
    kind = "article" if model is Article else "term"
    return [
        Hit(kind, rows[slug][0], slug, rows[slug][1], "", 0.5, "slug")
        for slug, _distance, _index in sorted(found, key=lambda f: (f[1], f[0]))
    ]


def closest_terms(*, text: str, limit: int = 3) -> list[Hit]:
    """The published terms a mistyped or differently written slug most likely meant, best
    first, for a page's "did you mean": slugs a few edits away, else similar names and
    synonyms (1–2 queries). The hits carry slug and name; a summary only when found by name."""
    return _near(Term, text, limit) or suggest_terms(text=text, limit=limit)


def closest_articles(*, text: str, limit: int = 3) -> list[Hit]:
    """The same for articles: slugs a few edits away, then the engine's hits (1–2 queries)."""
    return _near(Article, text, limit) or article_search(query=text.replace("-", " "), limit=limit)


def closest_term_slugs(*, text: str, limit: int = 3) -> list[str]:
    """Slugs of the published terms a mistyped or differently written slug most likely
    meant, best first: slugs a few edits away (typos: "mpc", "agnet"), else similar names
    and synonyms (`suggest_terms`), else what the engine finds for the text (1–3 queries, on
    a miss only; one for an ordinary typo)."""
    found = [h.slug for h in closest_terms(text=text, limit=limit)]
    if not found:
        found = [h.slug for h in term_search(query=text.replace("-", " "), limit=limit)]
    return found


def closest_article_slugs(*, text: str, limit: int = 3) -> list[str]:
    """The same for articles: slugs a few edits away, then the engine's hits (1–2 queries)."""
    return [h.slug for h in closest_articles(text=text, limit=limit)]


# A typed value this long that starts no slug is searched for instead ("agentow" -> agent).
COMPLETE_SEARCH_MIN = 3


def complete_term_slugs(*, prefix: str, limit: int = 100) -> list[str]:
    """Published term slugs starting with `prefix` (folded), for argument completion; when
    none does, the slugs of the terms the engine finds for it, best first (1–2 queries)."""
    return _complete(Term, term_search, prefix, limit)


def complete_article_slugs(*, prefix: str, limit: int = 100) -> list[str]:
    """Published article slugs starting with `prefix` (folded), for argument completion;
    when none does, the slugs of the articles the engine finds for it (1–2 queries)."""
    return _complete(Article, article_search, prefix, limit)


def _complete(model, engine, prefix, limit) -> list[str]:
    p = normalize_query(prefix).replace(" ", "-")
    qs = model.objects.published().order_by("slug").values_list("slug", flat=True)
    if p:
        qs = qs.filter(slug__startswith=p)
    slugs = list(qs[: _limit(limit)])
    if not slugs and len(p) >= COMPLETE_SEARCH_MIN:
        slugs = [hit.slug for hit in engine(query=p.replace("-", " "), limit=limit)]
    return slugs


# --- Answers that are never empty ----------------------------------------------------------

# A typed word is read as a word of a hit's name from this length on, one edit away (two from
# CORRECT_TWO_EDITS letters): the engine's own typo tolerance.
CORRECT_MIN = 5
CORRECT_TWO_EDITS = 8


def corrections(q: Query, hits: list[Hit]) -> dict[str, str]:
    """Typed words the hits matched only through a typo, each with the word of a hit's name
    it was read as ("kontekstowym okmo" -> {"okmo": ...} when "Okno kontekstowe" matched): a
    word whose stem occurs in no hit's name, within the engine's typo distance of a name
    word. For "did you mean"; no query of its own."""
    read = [_name_words(h.title) for h in hits[:3]]
    names = [w for title_words, _stems in read for w in title_words]
    stems = set().union(*(title_stems for _words, title_stems in read))
    found = {}
    for record in q.records:
        folded = record.folded
        if len(folded) < CORRECT_MIN or not stems.isdisjoint(record.stems):
            continue
        most = 2 if len(folded) >= CORRECT_TWO_EDITS else 1
        close = [(OSA.distance(folded, n, score_cutoff=most), n) for n in names]
        close = [(d, n) for d, n in close if 0 < d <= most]
        if close:
            found[record.text] = min(close)[1]
    return found


@lru_cache(maxsize=4096)
def _name_words(title: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """A name's folded words and their stems, once per name (answers repeat names)."""
    folded = tuple(words(fold(title)))
    return folded, frozenset(stem(w) for w in folded)


def _corrected(text: str, found: dict[str, str]) -> str:
    """`text` with each corrected word replaced by its reading (case and the rest kept)."""
    if not found:
        return ""
    pattern = re.compile("|".join(re.escape(w) for w in sorted(found, key=len, reverse=True)), re.I)
    return pattern.sub(lambda m: found.get(m.group().casefold(), m.group()), text)


def _answer(query: str, q: Query, hits: list[Hit], fallback) -> Answer:
    if not hits and q:
        hits = [_as_weak(h) for h in fallback()]
    found = corrections(q, hits) if q else {}
    weak = not hits or all(h.weak for h in hits[:1])
    return Answer(query, hits, weak, _corrected(query, found), found)


def _as_weak(hit: Hit) -> Hit:
    return replace(hit, weak=True)


def find_terms(*, query: str, limit: int = 10) -> Answer:
    """`term_search`, never empty for a query that shares anything with a name: when
    nothing matches, the terms whose names are closest to it (`suggest_terms`: similar, a
    typo away, or a name word beginning like a word of it), marked weak (1 query; 2 on a
    miss)."""
    q = Query(query)
    hits = _term_hits(q, query, limit)
    short = min(_limit(limit), 5)

    def fallback():
        return suggest_terms(text=query, limit=short)

    return _answer(query, q, hits, fallback)


def find_articles(*, query: str, limit: int = 10) -> Answer:
    """`article_search`, never empty for a query with words: when nothing matches, the
    articles that use the closest terms (1–3 queries)."""
    q = Query(query)
    hits = article_search(query=query, limit=limit)

    def fallback():
        names = [h.title for h in suggest_terms(text=query, limit=3)]
        return article_search(query=" ".join(names), limit=limit) if names else []

    return _answer(query, q, hits, fallback)


def search(*, query: str, limit: int = 20) -> SearchResults:
    """Everything the search page shows for `query` (2 queries; 3 when nothing matched).
    `exact` is the term named exactly so (or, for a comparison, nothing: both sides lead the
    list instead)."""
    results = SearchResults(query=query)
    q = Query(query)
    if not q:
        return results
    results.terms = term_search(query=query, limit=limit)
    results.articles = article_search(query=query, limit=limit)
    if q.comparison:
        results.comparison = [" ".join(s.words) for s in q.segments]
    elif results.terms and results.terms[0].match in ("name", "synonym"):
        results.exact = results.terms[0]
    if not results.terms and not results.articles:
        results.suggestions = suggest_terms(text=query)
    shown = results.terms or results.suggestions
    results.weak = not results.terms or results.terms[0].weak
    results.corrections = corrections(q, shown)
    results.did_you_mean = _corrected(query, results.corrections)
    return results
