"""The one search engine behind every entry point: the reader search page and its suggestions,
the MCP tools `search_term`/`search_articles`, `completion/complete`, the "did you mean"
suggestions of `get_term` and the admin search box. Callers only see the functions below.

How it matches (the derived columns are computed in Python by `refresh_derived()`, so save,
bulk import and both databases see the same text):
- `name_folded`/`search_names`: names and synonyms lower-cased with Polish diacritics folded
  ("Słownik" = "slownik" = "SŁOWNIK"), for exact, prefix and trigram matching;
- `stems_*`: Snowball Polish stems ("serwerów" -> "serwer"), per ranking weight;
- `typo_keys`: one-deletion keys of the name's words ("agnet" and "agent" share "agnt").

Ranking tiers, best first: exact name, exact synonym, name or synonym prefix, all query words
in the names (any order, any inflection), typo-tolerant name match, short definition, body
(articles: title, lead, body). Ties go to the closer name, then alphabetical order, then id.
`Hit.score` is 1.0 for an exact name and below 1.0 otherwise; `Hit.match` names the tier and
`Hit.snippet` is the summary with the matched words in <mark> (escaped, safe to render).

PostgreSQL answers each call in one statement whose candidates come from indexes only
(migration 0003: generated tsvectors and arrays with GIN indexes, pg_trgm GIN, a C-collation
btree), with caps on arms that can match much of the table (see `term_match_arms`). SQLite has
none of these: it prefilters rows with `LIKE` and computes the same tiers in Python, which is
linear in the glossary's size (fine for the few thousand terms of an embedded glossary).
"""

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from django.db import connection
from django.db.models import (
    BooleanField,
    ExpressionWrapper,
    FloatField,
    IntegerField,
    Q,
    Value,
)
from django.db.models.expressions import RawSQL
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from .models import Article, Term
from .polish import fold
from .stemming import TYPO_MIN_LENGTH, deletion_keys, query_stems, stem, words

MAX_QUERY_LENGTH = 200
MAX_QUERY_WORDS = 8
MAX_LIMIT = 100
SHORT_QUERY = 2  # queries this short match name prefixes only
PREFIX_STEM_MIN = 4  # stems this long also match longer stems ("agent" ~ "agentowy")

# Tier -> Hit.match label. Integers so SQL and Python rank identically.
NAME, SYNONYM, PREFIX, WORDS, FUZZY, DEFINITION, BODY = 7, 6, 5, 4, 3, 2, 1
MATCH_LABELS = {
    NAME: "name",
    SYNONYM: "synonym",
    PREFIX: "prefix",
    WORDS: "words",
    FUZZY: "fuzzy",
    DEFINITION: "definition",
    BODY: "body",
}
ARTICLE_LABELS = {**MATCH_LABELS, NAME: "title", WORDS: "title", DEFINITION: "lead"}


@dataclass(frozen=True)
class Hit:
    kind: str  # "term" | "article"
    id: int
    slug: str
    title: str
    summary: str
    score: float
    match: str = ""  # which tier matched: "name", "synonym", "prefix", "words", "fuzzy", ...
    snippet: SafeString = field(default_factory=lambda: mark_safe(""))  # summary with <mark>


@dataclass
class SearchResults:
    query: str
    terms: list[Hit] = field(default_factory=list)
    articles: list[Hit] = field(default_factory=list)
    suggestions: list[Hit] = field(default_factory=list)
    exact: Hit | None = None


def normalize_query(query: str) -> str:
    """Folded, whitespace-collapsed, bounded query text ("  SŁOWNIK " -> "slownik")."""
    return fold(query if isinstance(query, str) else "")[:MAX_QUERY_LENGTH]


class _Query:
    """One parsed query: its folded forms and, per word, the stems that satisfy it."""

    def __init__(self, text: str):
        text = text if isinstance(text, str) else ""
        self.folded = normalize_query(text)
        self.words = words(text[: MAX_QUERY_LENGTH * 2])[:MAX_QUERY_WORDS]
        self.key = " ".join(fold(w) for w in self.words)  # punctuation-free folded query
        self.alternatives = [query_stems(w) for w in self.words]
        self.short = len(self.folded) <= SHORT_QUERY
        self.fuzzy = any(len(w) >= TYPO_MIN_LENGTH for w in self.words)
        # Per long word, its one-deletion keys: a name sharing one is within ~1 edit.
        self.typo_groups = [k for k in (deletion_keys(fold(w)) for w in self.words) if k]

    def __bool__(self) -> bool:
        return bool(self.folded and self.words)

    def tsquery(self, weights: str = "", *, prefix: bool = True) -> str:
        """`to_tsquery('simple', …)` text: every word, any of its stems ('agent':* | …).
        Prefix matching suits names; in long text it would expand to too many lexemes."""
        groups = []
        for alternatives in self.alternatives:
            lexemes = []
            for s in alternatives:
                label = ("*" if prefix and len(s) >= PREFIX_STEM_MIN else "") + weights
                lexemes.append(f"'{s}':{label}" if label else f"'{s}'")
            groups.append("(" + " | ".join(lexemes) + ")")
        return " & ".join(groups)

    @cached_property
    def prefix_like(self) -> str:
        return _like_escape(self.folded) + "%"

    def word_matches(self, index: int, stems: str, *, prefix: bool = True) -> bool:
        """Whether query word `index` occurs in a space-padded stem column (Python side)."""
        for s in self.alternatives[index]:
            if f" {s} " in stems or (prefix and len(s) >= PREFIX_STEM_MIN and f" {s}" in stems):
                return True
        return False


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _limit(limit) -> int:
    try:
        return max(1, min(int(limit), MAX_LIMIT))
    except (TypeError, ValueError):
        return 10


def _sql(sql: str, params: list, output_field=None) -> RawSQL:
    """Raw SQL assembled only from the constant fragments in this module; every value
    derived from the query travels as a parameter."""
    return RawSQL(sql, params, output_field)  # noqa: S611


def _postgres() -> bool:
    return connection.vendor == "postgresql"


def _score(tier: int, closeness: float) -> float:
    """1.0 for an exact name; otherwise (tier + closeness) / 8, always below 1.0."""
    if tier == NAME:
        return 1.0
    return round((tier + min(max(closeness, 0.0), 0.99)) / (NAME + 1), 4)


# --- Highlighting ------------------------------------------------------------------------

_TOKEN = re.compile(r"[^\W_]+")


def highlight(text: str, query: "_Query | str") -> SafeString:
    """`text` escaped, with the words that match the query (any inflection, typos in long
    words) wrapped in <mark>. Safe to render as is."""
    q = query if isinstance(query, _Query) else _Query(query)
    wanted = {s for alternatives in q.alternatives for s in alternatives}
    folded_words = [fold(w) for w in q.words]
    out, last = [], 0
    for m in _TOKEN.finditer(text):
        word = m.group().casefold()
        s = stem(word)
        hit = s in wanted or any(len(w) >= PREFIX_STEM_MIN and s.startswith(w) for w in wanted)
        if not hit and len(word) >= TYPO_MIN_LENGTH:
            f = fold(word)
            hit = any(len(w) >= TYPO_MIN_LENGTH and _within(f, w, 2) for w in folded_words)
        if hit:
            out.append(escape(text[last : m.start()]))
            out.append(f"<mark>{escape(m.group())}</mark>")
            last = m.end()
    out.append(escape(text[last:]))
    return mark_safe("".join(out))  # noqa: S308 - every piece above is escaped


def _within(a: str, b: str, limit: int) -> bool:
    """Levenshtein distance of `a` and `b` is at most `limit` (banded, early exit)."""
    if abs(len(a) - len(b)) > limit:
        return False
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return False
        previous = current
    return previous[-1] <= limit


def _trigrams(text: str) -> set[str]:
    grams = set()
    for w in words(text):
        padded = f"  {w} "
        grams.update(padded[i : i + 3] for i in range(len(padded) - 2))
    return grams


def _similarity(a: str, b: str) -> float:
    """pg_trgm's `similarity()`, for the SQLite path."""
    ta, tb = _trigrams(a), _trigrams(b)
    return len(ta & tb) / len(ta | tb) if ta and tb else 0.0


# --- Terms -------------------------------------------------------------------------------

_TERM_ROW = ("id", "slug", "name", "short_definition", "sort_key")


def term_search(*, query: str, limit: int = 10) -> list[Hit]:
    """Published terms matching `query`, best first, with score, tier and snippet (1 query)."""
    q = _Query(query)
    if not q:
        return []
    limit = _limit(limit)
    ranked = _term_rows_postgres(q, limit) if _postgres() else _term_rows_python(q, limit)
    return [
        Hit(
            "term",
            pk,
            slug,
            name,
            short,
            _score(tier, closeness),
            MATCH_LABELS[tier],
            highlight(short, q),
        )
        for pk, slug, name, short, tier, closeness in ranked
    ]


# How many candidates an arm that can match a large share of the table may contribute. A word
# found in most bodies (a Polish "stopword") would otherwise make PostgreSQL rank every row.
TEXT_CANDIDATES = 100
NAME_CANDIDATES = 50
TRIGRAM_MAX_CHARS = 16  # ~18 trigrams: a few ms at 100k terms
SYNONYM_PREFIX_MAX = 12


class Arm(NamedTuple):
    """One candidate condition: SQL with its params, an optional cap on its candidates, and
    whether to evaluate it in full first (a MATERIALIZED CTE), so that the planner cannot
    trade its index for a "sequential scan until `limit` rows" on a bad estimate."""

    sql: str
    params: list
    limit: int | None = None
    materialized: bool = False
    unless: tuple = ()  # arms whose finding anything makes this one unnecessary


def _gate(arm: Arm, names: dict) -> str:
    """`NOT EXISTS` tests on the CTEs of `arm.unless`: uncorrelated, so PostgreSQL runs each
    once (an InitPlan reading one row of an index scan) and skips the arm's own index scan
    entirely when a cheaper arm matched."""
    tests = [f"NOT EXISTS (SELECT 1 FROM {names[id(other)]})" for other in arm.unless]  # noqa: S608
    return " AND ".join(tests) or "TRUE"


def term_match_arms(q: _Query) -> list[Arm]:
    """The conditions selecting candidate terms on PostgreSQL as (SQL, params, limit): each
    is an operator an index serves (btree `=`/prefix, trigram `LIKE`/`<%`, tsvector `@@`,
    array `&&`); arms that may match many rows are capped at `limit` candidates."""
    # Arms that gate others are materialized: an EXISTS test on a plain subquery may be
    # planned as "sequential scan until the first row", which reads the whole table when
    # nothing matches.
    exact = Arm("name_folded = %s", [q.folded], materialized=True)  # btree
    exact_any = Arm("names_array @> %s::text[]", [[q.key]], materialized=True)  # array GIN
    # C-collation btree: the shortest names with this prefix come first.
    prefix = Arm('(name_folded COLLATE "C") LIKE %s', [q.prefix_like], NAME_CANDIDATES, True)
    words_in_names = Arm(
        "names_vector @@ to_tsquery('simple', %s)", [q.tsquery()], NAME_CANDIDATES, True
    )
    arms = [
        exact,
        exact_any,
        prefix,
        words_in_names,
        Arm(
            "search_vector @@ to_tsquery('simple', %s)", [q.tsquery(prefix=False)], TEXT_CANDIDATES
        ),
    ]
    if len(q.key) <= SYNONYM_PREFIX_MAX:
        # Synonym prefix ("serwe" -> "serwera MCP"): trigram `LIKE`, whose index cost grows
        # with the pattern; a longer query is matched word by word by `names_vector`.
        # Only when no name starts so: at 1M terms this scan costs ~20 ms.
        arms.insert(
            3,
            Arm("search_names LIKE %s", [f"%| {q.key}%"], NAME_CANDIDATES, True, (prefix,)),
        )
    if q.fuzzy:
        # Deletion keys: every long query word within one edit (or one swap) of a name word;
        # cheap and exact, they find "agnet" where trigrams see too little in common.
        # Capped too: a correct common word ("context") is one edit from many names.
        typo_sql = " AND ".join(["typo_array && %s::text[]"] * len(q.typo_groups))
        typos = Arm(f"({typo_sql})", list(q.typo_groups), NAME_CANDIDATES, True)
        arms.append(typos)
        if len(q.key) <= TRIGRAM_MAX_CHARS:
            # Trigrams (`<%`: word similarity >= 0.6) add two-edit typos ("strimable http")
            # in names and synonyms. The GIN index reads one posting list per query trigram,
            # so longer queries rely on the deletion keys alone. Looser likeness is left to
            # `suggest_terms` ("did you mean"). A fallback: skipped (never scanned) when the
            # names or the deletion keys matched already; at 1M terms it costs ~50 ms.
            arms.append(
                Arm(
                    "%s <%% search_names", [q.key], NAME_CANDIDATES, True,
                    unless=(exact, exact_any, words_in_names, typos),
                )
            )  # fmt: skip
    return arms


def _candidates_sql(arms: list[Arm]) -> tuple[str, list]:
    """One `WITH … SELECT id … UNION …` over the arms. Materialized arms are CTEs, planned
    without their LIMIT (so always from their index) and read lazily up to it; the others
    are OR-ed (uncapped, a BitmapOr) or LIMIT-ed subqueries."""
    names = {id(arm): f"arm{i}" for i, arm in enumerate(arms) if arm.materialized}
    ctes, parts, params = [], [], []
    for arm in arms:
        if arm.materialized:
            body = f"SELECT id FROM glossary_term WHERE {arm.sql}"  # noqa: S608 - constant SQL
            ctes.append(f"{names[id(arm)]} AS MATERIALIZED ({body})")
            params += arm.params
    free = [arm for arm in arms if arm.limit is None and not arm.materialized]
    if free:
        where = " OR ".join(arm.sql for arm in free)
        parts.append(f"SELECT id FROM glossary_term WHERE {where}")  # noqa: S608 - constant SQL
        params += [p for arm in free for p in arm.params]
    for arm in arms:
        limit = f" LIMIT {int(arm.limit)}" if arm.limit is not None else ""
        if arm.materialized:
            gate = _gate(arm, names)
            parts.append(f"(SELECT id FROM {names[id(arm)]} WHERE {gate}{limit})")  # noqa: S608
        elif arm.limit is not None:
            parts.append(f"(SELECT id FROM glossary_term WHERE {arm.sql}{limit})")  # noqa: S608
            params += arm.params
    sql = " UNION ".join(parts)
    return (f"WITH {', '.join(ctes)} {sql}" if ctes else sql), params


def _term_rows_postgres(q: _Query, limit: int):
    published = Term.objects.published()
    if q.short:
        # One or two letters: name prefixes in C order (exact name first) from the btree,
        # plus names and synonyms equal to the query; never a scan of the whole table.
        prefix = (
            published.filter(
                _sql('(name_folded COLLATE "C") LIKE %s', [q.prefix_like], BooleanField())
            )
            .annotate(
                tier=_sql("CASE WHEN name_folded = %s THEN 7 ELSE 5 END", [q.folded]),
                closeness=_sql("0.0", [], FloatField()),
            )
            .order_by(_sql('name_folded COLLATE "C"', []).asc(), "id")
            .values_list(*_TERM_ROW, "tier", "closeness")[:limit]
        )
        synonym = (
            published.filter(_sql("names_array @> %s::text[]", [[q.key]], BooleanField()))
            .annotate(
                tier=_sql("6", [], IntegerField()),
                closeness=_sql("0.0", [], FloatField()),
            )
            .order_by("sort_key", "id")
            .values_list(*_TERM_ROW, "tier", "closeness")[:limit]
        )
        rows = {}
        for row in [*prefix.union(synonym, all=True)]:
            if row[0] not in rows or rows[row[0]][5] < row[5]:
                rows[row[0]] = row
        ordered = sorted(rows.values(), key=lambda r: (-r[5], -r[6], r[4], r[0]))[:limit]
        return [(r[0], r[1], r[2], r[3], r[5], r[6]) for r in ordered]

    tsq_text = q.tsquery(prefix=False)
    synonym_prefix = f"%| {q.key}%" if len(q.key) <= SYNONYM_PREFIX_MAX else ""
    candidates_sql, candidates_params = _candidates_sql(term_match_arms(q))
    # A candidate matched by no name test and not by the text either came from a typo arm:
    # deciding that by elimination spares re-running trigram and array tests on every row.
    tier_sql = """CASE
        WHEN name_folded = %s THEN 7
        WHEN names_array @> %s::text[] THEN 6
        WHEN name_folded LIKE %s OR search_names LIKE %s THEN 5
        WHEN names_vector @@ to_tsquery('simple', %s) THEN 4
        WHEN NOT search_vector @@ to_tsquery('simple', %s) THEN 3
        WHEN search_vector @@ to_tsquery('simple', %s) THEN 2
        ELSE 1 END"""
    tier_params = [
        q.folded, [q.key], q.prefix_like, synonym_prefix, q.tsquery(), tsq_text,
        q.tsquery("AB", prefix=False),
    ]  # fmt: skip
    # Within a tier: the name closest to the query ("sesja" before "identyfikator sesji").
    # Cheap on purpose: it runs for every candidate (ts_rank would read each tsvector).
    closeness_sql = "similarity(name_folded, %s)"
    rows = (
        Term.objects.published()
        .filter(id__in=_sql(candidates_sql, candidates_params))
        .annotate(
            tier=_sql(tier_sql, tier_params, IntegerField()),
            closeness=_sql(closeness_sql, [q.key], FloatField()),
        )
        .order_by("-tier", "-closeness", "sort_key", "id")
        .values_list("id", "slug", "name", "short_definition", "tier", "closeness")[:limit]
    )
    return list(rows)


def _body_hits(q: _Query, column: str) -> dict:
    """One boolean per query word: does the (space-padded) stem column contain it?"""
    hits = {}
    for i, alternatives in enumerate(q.alternatives):
        cond = Q()
        for s in alternatives:
            cond |= Q(**{f"{column}__contains": f" {s} "})
        hits[f"_w{i}"] = ExpressionWrapper(cond, output_field=BooleanField())
    return hits


def _name_closeness(q: _Query, search_names: str) -> float:
    variants = [v.strip() for v in search_names.split("|") if v.strip()]
    return max((_similarity(q.key, v) for v in variants), default=0.0)


def _fuzzy_names(q: _Query, search_names: str, stems_names: str) -> bool:
    """Every query word is in the names, as a stem or within two edits (words ≥ 5 letters)
    or one edit from the start of a longer name word (a word still being typed: "protok" ~
    "protocol", as PostgreSQL's trigram word similarity finds it), and one needed the edits."""
    name_words = set(words(search_names))
    used_edits = False
    for i, word in enumerate(q.words):
        if q.word_matches(i, stems_names):
            continue
        f = fold(word)
        if len(f) >= TYPO_MIN_LENGTH and any(
            _within(f, w, 2) or (len(w) > len(f) and _within(f, w[: len(f)], 1)) for w in name_words
        ):
            used_edits = True
            continue
        return False
    return used_edits


def _term_rows_python(q: _Query, limit: int, base=None):
    qs = Term.objects.published() if base is None else base
    hit_names = [f"_w{i}" for i in range(len(q.words))]
    if q.short:
        qs = qs.filter(
            Q(name_folded__startswith=q.folded) | Q(search_names__contains=f"| {q.key} |")
        ).annotate(_fz=Value(False))
    else:
        # SQLite evaluates these LIKEs in C; only rows that may match reach Python, and only
        # rows a typo may point to pay for the edit distances.
        qs = qs.annotate(
            _fz=ExpressionWrapper(_fuzzy_prefilter(q), BooleanField()) if q.fuzzy else Value(False)
        ).filter(_python_prefilter(q))
    rows = qs.annotate(**_body_hits(q, "stems_body")).values_list(
        *_TERM_ROW, "name_folded", "search_names", "stems_names", "stems_definition", "_fz",
        *hit_names,
    )  # fmt: skip
    ranked = []
    for pk, slug, name, short, sort, name_folded, names, stems_names, stems_def, fz, *body in rows:
        tier = _term_tier(q, name_folded, names, stems_names, stems_def, body, bool(fz))
        if tier:
            # Short queries list prefixes alphabetically, as PostgreSQL's index order does.
            closeness = (
                0.0
                if q.short
                else (0.6 * _similarity(q.key, name_folded) + 0.3 * _name_closeness(q, names))
            )
            ranked.append((-tier, -closeness, sort, pk, slug, name, short))
    ranked.sort()
    return [(pk, slug, name, short, -t, -c) for t, c, _s, pk, slug, name, short in ranked[:limit]]


def _fuzzy_prefilter(q: _Query) -> Q:
    """Rows a typo may point to: a name word one deletion away (the keys PostgreSQL indexes)
    or a name containing the first four letters of a long query word."""
    cond = Q(pk__in=[])
    for keys in q.typo_groups:
        for key in keys:
            cond |= Q(typo_keys__contains=f" {key} ")
    for word in q.words:
        if len(word) >= TYPO_MIN_LENGTH:
            cond |= Q(search_names__contains=fold(word)[:4])
    return cond


def _python_prefilter(q: _Query) -> Q:
    """Rows that can reach any tier: a name prefix, a stem of some query word, or a typo."""
    cond = Q(name_folded__startswith=q.folded) | Q(search_names__contains=f"| {q.key}")
    for alternatives in q.alternatives:
        for s in alternatives:
            cond |= Q(stems_names__contains=f" {s}") | Q(stems_definition__contains=f" {s} ")
            cond |= Q(stems_body__contains=f" {s} ")
    return cond | _fuzzy_prefilter(q) if q.fuzzy else cond


def _term_tier(q, name_folded, names, stems_names, stems_def, body, fuzzy_possible=True) -> int:
    if name_folded == q.folded:
        return NAME
    if f"| {q.key} |" in names:
        return SYNONYM
    if name_folded.startswith(q.folded) or (not q.short and f"| {q.key}" in names):
        return PREFIX
    if q.short:
        return 0
    in_names = [q.word_matches(i, stems_names) for i in range(len(q.words))]
    if all(in_names):
        return WORDS
    # Edit distances only where a typo is plausible: a prefiltered row, or names that already
    # share a word with the query ("strimable http" and "Streamable HTTP").
    if q.fuzzy and (fuzzy_possible or any(in_names)) and _fuzzy_names(q, names, stems_names):
        return FUZZY
    in_def = [a or q.word_matches(i, stems_def, prefix=False) for i, a in enumerate(in_names)]
    if all(in_def):
        return DEFINITION
    if all(a or b for a, b in zip(in_def, body, strict=True)):
        return BODY
    return 0


def matching_terms(*, queryset, query: str):
    """`queryset` (any terms, drafts included: the admin's search box) narrowed to the terms
    the engine matches for `query`, without caps or ranking; the caller orders the list."""
    q = _Query(query)
    if not q:
        return queryset.none()
    if _postgres():
        arms = term_match_arms(q)
        sql = " OR ".join(arm.sql for arm in arms)
        params = [p for arm in arms for p in arm.params]
        return queryset.filter(_sql(sql, params, BooleanField()))
    ids = [row[0] for row in _term_rows_python(q, ADMIN_LIMIT, base=queryset.order_by())]
    return queryset.filter(id__in=ids)


ADMIN_LIMIT = 1000  # SQLite: the ranked scan keeps at most this many matches


# --- Articles ----------------------------------------------------------------------------


def article_search(*, query: str, limit: int = 10) -> list[Hit]:
    """Published articles matching `query`: title, then lead, then body (1 query)."""
    q = _Query(query)
    if not q:
        return []
    limit = _limit(limit)
    ranked = _article_rows_postgres(q, limit) if _postgres() else _article_rows_python(q, limit)
    return [
        Hit(
            "article",
            pk,
            slug,
            title,
            lead,
            _score(tier, closeness),
            ARTICLE_LABELS[tier],
            highlight(lead, q),
        )
        for pk, slug, title, lead, tier, closeness in ranked
    ]


def _article_rows_postgres(q: _Query, limit: int):
    # Title and lead match stems by prefix, the body exact stems (as for terms).
    tsq_all, tsq_title, tsq_lead = q.tsquery(prefix=False), q.tsquery("A"), q.tsquery("AB")
    match_sql = ["title_folded = %s", "title_folded LIKE %s"]
    match_params = [q.folded, q.prefix_like]
    if not q.short:
        match_sql.append("search_vector @@ to_tsquery('simple', %s)")
        match_sql.append("search_vector @@ to_tsquery('simple', %s)")
        match_params += [tsq_lead, tsq_all]
    fuzzy_sql, fuzzy_params = "FALSE", []
    if q.fuzzy:
        fuzzy_sql, fuzzy_params = "%s <%% title_folded", [q.key]
        match_sql.append(fuzzy_sql)
        match_params += fuzzy_params
    tier_sql = f"""CASE
        WHEN title_folded = %s THEN 7
        WHEN title_folded LIKE %s THEN 5
        WHEN search_vector @@ to_tsquery('simple', %s) THEN 4
        WHEN {fuzzy_sql} THEN 3
        WHEN search_vector @@ to_tsquery('simple', %s) THEN 2
        ELSE 1 END"""
    tier_params = [q.folded, q.prefix_like, tsq_title, *fuzzy_params, tsq_lead]
    closeness_sql = """word_similarity(%s, title_folded)
        + LEAST(ts_rank(search_vector, to_tsquery('simple', %s)), 0.5) / 10"""
    rows = (
        Article.objects.published()
        .filter(_sql(" OR ".join(match_sql), match_params, BooleanField()))
        .annotate(
            tier=_sql(tier_sql, tier_params, IntegerField()),
            closeness=_sql(closeness_sql, [q.key, tsq_all], FloatField()),
        )
        .order_by("-tier", "-closeness", "-published_at", "-id")
        .values_list("id", "slug", "title", "lead", "tier", "closeness")[:limit]
    )
    return list(rows)


def _article_rows_python(q: _Query, limit: int):
    rows = (
        Article.objects.published()
        .annotate(**_body_hits(q, "stems_body"))
        .values_list(
            "id", "slug", "title", "lead", "published_at", "title_folded", "stems_title",
            "stems_lead", *[f"_w{i}" for i in range(len(q.words))],
        )
    )  # fmt: skip
    ranked = []
    for pk, slug, title, lead, published_at, folded, stems_title, stems_lead, *body in rows:
        tier = _article_tier(q, folded, stems_title, stems_lead, body)
        if tier:
            closeness = _similarity(q.key, folded)
            ranked.append((tier, closeness, published_at, pk, slug, title, lead))
    ranked.sort(key=lambda r: (r[0], r[1], r[2], r[3]), reverse=True)
    return [(pk, slug, title, lead, t, c) for t, c, _p, pk, slug, title, lead in ranked[:limit]]


def _article_tier(q, folded, stems_title, stems_lead, body) -> int:
    if folded == q.folded:
        return NAME
    if folded.startswith(q.folded):
        return PREFIX
    if q.short:
        return 0
    in_title = [q.word_matches(i, stems_title) for i in range(len(q.words))]
    if all(in_title):
        return WORDS
    if q.fuzzy and _fuzzy_names(q, folded, stems_title):
        return FUZZY
    in_lead = [a or q.word_matches(i, stems_lead) for i, a in enumerate(in_title)]
    if all(in_lead):
        return DEFINITION
    if all(a or b for a, b in zip(in_lead, body, strict=True)):
        return BODY
    return 0


# --- Suggestions and completion -----------------------------------------------------------


def suggest_terms(*, text: str, limit: int = 3) -> list[Hit]:
    """Published terms whose name or a synonym is closest to `text` (a query or a mistyped
    slug), for "did you mean" (1 query; trigram index on PostgreSQL)."""
    q = _Query((text or "").replace("-", " ") if isinstance(text, str) else "")
    if not q:
        return []
    limit = _limit(limit)
    if _postgres():
        rows = list(
            Term.objects.published()
            .filter(
                _sql(
                    "(%s <%% search_names OR typo_array && %s::text[])",
                    [q.key, [k for keys in q.typo_groups for k in keys]],
                    BooleanField(),
                )
            )
            .annotate(
                closeness=_sql(
                    "GREATEST(similarity(name_folded, %s), word_similarity(%s, search_names))",
                    [q.key, q.key],
                    FloatField(),
                )
            )
            .order_by("-closeness", "sort_key", "id")
            .values_list("id", "slug", "name", "short_definition", "closeness")[:limit]
        )
    else:
        scored = []
        for pk, slug, name, short, sort, names in Term.objects.published().values_list(
            *_TERM_ROW, "search_names"
        ):
            closeness = max(_name_closeness(q, names), _similarity(q.key, slug.replace("-", " ")))
            if closeness >= 0.3 or _any_word_close(q, name):
                scored.append((-closeness, sort, pk, slug, name, short))
        scored.sort()
        rows = [(pk, slug, name, short, -c) for c, _s, pk, slug, name, short in scored[:limit]]
    return [
        Hit("term", pk, slug, name, short, round(min(c, 0.99), 4), "fuzzy", highlight(short, q))
        for pk, slug, name, short, c in rows
    ]


def _any_word_close(q: _Query, name: str) -> bool:
    """Some long query word is within one edit of a word of `name` (SQLite "did you mean")."""
    name_words = words(fold(name))
    return any(
        len(w) >= TYPO_MIN_LENGTH and any(_within(fold(w), n, 1) for n in name_words)
        for w in q.words
    )


def complete_term_slugs(*, prefix: str, limit: int = 100) -> list[str]:
    """Published term slugs starting with `prefix` (folded), for argument completion."""
    p = normalize_query(prefix).replace(" ", "-")
    qs = Term.objects.published().order_by("slug").values_list("slug", flat=True)
    if p:
        qs = qs.filter(slug__startswith=p)
    return list(qs[: _limit(limit)])


def complete_article_slugs(*, prefix: str, limit: int = 100) -> list[str]:
    """Published article slugs starting with `prefix` (folded), for argument completion."""
    p = normalize_query(prefix).replace(" ", "-")
    qs = Article.objects.published().order_by("slug").values_list("slug", flat=True)
    if p:
        qs = qs.filter(slug__startswith=p)
    return list(qs[: _limit(limit)])


def search(*, query: str, limit: int = 20) -> SearchResults:
    """Everything the search page shows for `query` (2 queries; 3 when nothing matched)."""
    results = SearchResults(query=query)
    if not _Query(query):
        return results
    results.terms = term_search(query=query, limit=limit)
    results.articles = article_search(query=query, limit=limit)
    if results.terms and results.terms[0].match == "name":
        results.exact = results.terms[0]
    if not results.terms and not results.articles:
        results.suggestions = suggest_terms(text=query)
    return results
