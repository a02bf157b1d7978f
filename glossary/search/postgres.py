"""The PostgreSQL engine: one statement per search, its text fixed per shape and built once.

Shapes: short queries (one or two letters: name prefixes only), one subject word, one-sided
and two-sided (comparison) queries, for terms and for articles; each also in a second text
that appends the planner statistics, run once per STATISTICS_MAX_AGE (a generic plan
initializes every node whether it runs or not, so the other calls carry no `pg_stats` read and
a single word no arms only several words can fill). Every value derived from the query
travels as a parameter (arrays and tsquery texts), so a shape's SQL never changes: the Python
side only fills a list, and with server-side binding PostgreSQL plans it once per connection.

Candidates come from indexes only (migration 0003), each arm capped (limit + 10 unless said):
- names: GIN array overlap (exact name or synonym: the array holds the name too), a
  C-collation btree range (name prefix), GIN over name and synonym stems (all words of a side
  in the names, the last one as a prefix), and per word an exact name ("sse websocket" lists
  both terms);
- text: GIN over all stems (every word of a side), only while the names found fewer than the
  limit; then partial matches per word (words in fewer than COMMON_WORD entries by the
  planner's statistics, and the side's rarest word), 8 entries each from the names for a
  side no entry names whole (a long body holding every word must not hide the entry with
  two of three words in its names), and from short definitions and any text for a side no
  entry matches whole;
- typos: GIN over one-deletion keys of the longest word while the names fall short, and
  trigram word similarity as a fallback when nothing else matched (50 each; a trigram
  candidate is a fuzzy match only through the words close to its names).
Then each candidate gets, per query word, the best field it occurs in (`lv`), the words' idf
from the planner's statistics and the candidates, and a tier from `ranking.TIERS`; the
coverage score is computed only for candidates in no name tier. Per candidate the plan runs
each test once: the tiers and scores are computed in a subquery and a materialized CTE (not
inlined into every reference), a single word's tests read the parameters directly (no subplan
over `w`), and with several words the candidate's search vector (stored out of line: a term's
row passes the TOAST threshold) is fetched once for all its field tests.
"""

# SQL is composed here from this module's constant fragments and column names only; every value
# derived from a query travels as a parameter (`_Params`).
# ruff: noqa: S608
from __future__ import annotations

import operator
import re
import time
from functools import lru_cache

from django.db import DEFAULT_DB_ALIAS, connection, connections

from ..db.cache import LRU
from ..db.cursors import kept_cursor
from ..db.placeholders import CLOCK, locate
from ..models import Article, Term
from . import ranking
from .query import Query, Word, _like_escape, _tsquery

NAME_CANDIDATES = 50  # typo and trigram arms; name and text arms take limit + 10
WORD_CANDIDATES = 8
COMMON_WORD = 5000  # entries above which a word gathers no partial matches of its own
STATISTICS_MAX_AGE = 600  # seconds a process keeps the planner statistics it read
TRIGRAM_MAX_CHARS = 16  # ~18 trigrams: a few ms at 100k terms
# A word of a trigram candidate is fuzzy-close to its names from this word similarity on: two
# edits inside a nine-letter word keep 4 of its 10 trigrams ("strimable" ~ "streamable" 0.5),
# an unrelated word keeps none.
TRIGRAM_WORD_MIN = 0.4


class _Params:
    """Positional parameters named while the SQL is written, filled per call by name.

    `p("name")` leaves a marker in the text; `finish()` turns the markers into `%s` in text
    order, so the order of the values can never drift from the order of the placeholders.
    (Positional, not named, on purpose: bench/mcp.py replays captured statements with their
    parameters as a tuple.)"""

    _MARK = re.compile("\x00([a-z_0-9]+)\x00")

    def __init__(self) -> None:
        self.order: list[str] = []
        self.names: tuple[str, ...] = ()

    def __call__(self, name: str, cast: str = "") -> str:
        return f"\x00{name}\x00{cast}"

    def finish(self, sql: str) -> str:
        # Whitespace collapsed: psycopg caches its conversion of statements up to 4 KB only.
        sql = " ".join(sql.split())
        self.order = self._MARK.findall(sql)
        self.names = tuple(dict.fromkeys(self.order))
        self._in_order = operator.itemgetter(*self.order) if self.order else lambda _v: ()
        return self._MARK.sub("%s", sql)

    def fill(self, values: dict) -> list:
        """The values in placeholder order, lists as array literals (see `_array`); each
        name converted once however often the statement repeats it, and only the names
        the statement uses. `values` is the caller's own: its lists are replaced."""
        for n in self.names:
            v = values[n]
            if type(v) is list:
                values[n] = _array(v)
        found = self._in_order(values)
        return list(found) if type(found) is tuple else [found]


class Table:
    """Where a searchable model keeps its search columns (None: the model has no such one)."""

    def __init__(self, model, *, name, exact_any, synonyms, names_vector, typos, output, sort):
        self.model, self.name, self.exact_any, self.synonyms = model, name, exact_any, synonyms
        self.names_vector, self.typos, self.output, self.sort = names_vector, typos, output, sort
        self.table = model._meta.db_table
        self.article = model is Article

    def order(self, alias: str) -> str:
        """Tie-breaking order after tier, score and closeness."""
        return ", ".join(f"{alias}.{col}" for col in self.sort)


TERMS = Table(
    Term,
    name="name_folded",
    exact_any="names_array",
    synonyms="search_names",
    names_vector="names_vector",
    typos="typo_array",
    output=("slug", "name", "short_definition"),
    sort=("sort_key", "id"),
)
ARTICLES = Table(
    Article,
    name="title_folded",
    exact_any=None,
    synonyms=None,
    names_vector="search_vector",  # the title is its weight A: name tsqueries carry ":A"
    typos=None,
    output=("slug", "title", "lead"),
    sort=("published_at DESC", "id DESC"),
)

# Statement texts per (table, shape, statistics): a fixed, small set.
_compiled = LRU(64)


def _visibility(table: Table, p: _Params, alias: str = "") -> str:
    """`published()` compiled by the ORM once, its clock and values as named parameters:
    the one visibility rule, not a copy of it."""
    qs = table.model.objects.published(now=CLOCK)
    sql, params = qs.query.get_compiler(connection=connection).compile(qs.query.where)
    roles = locate(params, {"now": CLOCK})
    if roles is None:
        raise RuntimeError("published() no longer reads its clock as a parameter")
    pieces = sql.split("%s")
    out = [pieces[0]]
    for n, ((role, _value), piece) in enumerate(zip(roles, pieces[1:], strict=True)):
        out.append(p(role or f"visible{n}"))
        out.append(piece)
    if alias:
        out = [piece.replace(f'"{table.table}".', f"{alias}.") for piece in out]
    _visibility_values.put(
        table.table, {f"visible{n}": v for n, (role, v) in enumerate(roles) if role is None}
    )
    return "".join(out)


# Per table: the constants of its visibility rule (`_visibility`), filled by name per call.
_visibility_values = LRU(8)


def _exact_test(table: Table, array: str) -> str:
    """The indexed test "the name or a synonym is one of `array`": the GIN overlap on the
    names array (which holds the name too: one probe, not two), else btree equality."""
    return f"{table.exact_any} && {array}" if table.exact_any else f"{table.name} = ANY({array})"


def _several_words(table: Table, p: _Params, sides: int, ctes: list, later: list) -> None:
    """The arms only a query of several words can fill: exact names of single words, partial
    matches (some of a side's words)."""
    t, nv = table.table, table.names_vector
    # Entries named exactly like one of the words ("sse websocket" lists SSE and WebSocket).
    ctes.append(f"ew AS (SELECT id FROM {t} WHERE {_exact_test(table, p('words', '::text[]'))})")
    later.append("ew")

    # A side no entry names whole (all its words in the names), and one no entry matches
    # whole (in the names or in the text)...
    def side_case(test: str) -> str:
        whens = " ".join(f"WHEN {s} THEN {test.format(s=s)}" for s in range(sides))
        return f"(CASE w.side {whens} END)"

    unnamed = side_case("NOT EXISTS (SELECT 1 FROM n{s})")
    unmatched = side_case("NOT EXISTS (SELECT 1 FROM n{s}) AND NOT EXISTS (SELECT 1 FROM t{s})")
    # ...gets partial matches: entries with some of its words, rarer words only (a word in most
    # entries costs a large index read and adds nothing: the planner's statistics say which,
    # read only when this arm runs); per word its names, then its short definitions, then any
    # text, so that the cap keeps the best-placed matches.
    ctes.append(
        f"""pw AS MATERIALIZED (
        SELECT x.id FROM w, LATERAL (
            (SELECT id FROM {t} WHERE {unnamed} AND {nv} @@ w.nq LIMIT {WORD_CANDIDATES})
            UNION ALL (SELECT id FROM {t} WHERE {unmatched}
                       AND search_vector @@ w.dq LIMIT {WORD_CANDIDATES})
            UNION ALL (SELECT id FROM {t} WHERE {unmatched}
                       AND search_vector @@ w.bq LIMIT {WORD_CANDIDATES})
        ) x
        WHERE w.try)"""
    )
    later.append("pw")


def _build(
    table: Table, sides: int, stats: bool = False, *, one_word: bool = False
) -> tuple[str, _Params]:
    """The statement of a one-sided (`sides` 1) or comparison (2) query; `one_word` leaves out
    the arms a single word cannot fill (see `_statement`)."""
    p = _Params()
    t, nv = table.table, table.names_vector
    ctes = [
        # Per query word: tsqueries for names, definition and body, side, typo keys, frequency.
        f"""w AS MATERIALIZED (
        SELECT u.i::int AS i, u.nq, u.dq, u.bq, u.side,
               string_to_array(NULLIF(u.keys, ''), ' ') AS keys,
               u.freq, u.try, u.word
        FROM unnest({p("w_n", "::tsquery[]")}, {p("w_d", "::tsquery[]")}, {p("w_b", "::tsquery[]")},
                    {p("w_side", "::int[]")}, {p("w_keys", "::text[]")}, {p("w_freq", "::float[]")},
                    {p("w_try", "::bool[]")}, {p("w_word", "::text[]")})
             WITH ORDINALITY AS u(nq, dq, bq, side, keys, freq, try, word, i))""",
    ]
    names = [f"n{s}" for s in range(sides)]
    for s in range(sides):
        # An exact name: the names array holds the name too, so one GIN probe finds it.
        arms = [f"(SELECT id FROM {t} WHERE {_exact_test(table, p(f'exact{s}', '::text[]'))})"]
        arms.append(
            f'(SELECT id FROM {t} WHERE ({table.name} COLLATE "C") >= {p(f"lo{s}")} '
            f'AND ({table.name} COLLATE "C") < {p(f"hi{s}")} '
            f'ORDER BY ({table.name} COLLATE "C") LIMIT {p("cap")})'
        )
        names_query = p(f"names{s}", "::tsquery")
        arms.append(f"(SELECT id FROM {t} WHERE {nv} @@ {names_query} LIMIT {NAME_CANDIDATES})")
        ctes.append(f"n{s} AS MATERIALIZED ({' UNION '.join(arms)})")
    found_names = " + ".join(f"(SELECT count(*) FROM {n})" for n in names)
    later = []
    for s in range(sides):
        ctes.append(
            f"t{s} AS MATERIALIZED (SELECT id FROM {t} WHERE ({found_names}) < {p('limit')} "
            f"AND search_vector @@ {p(f'text{s}', '::tsquery')} "
            f"LIMIT {p('cap')})"
        )
        later.append(f"t{s}")
    if not one_word:
        _several_words(table, p, sides, ctes, later)
    none_named = " AND ".join(f"NOT EXISTS (SELECT 1 FROM {n})" for n in names)
    if table.typos:
        ctes.append(
            f"ty AS MATERIALIZED (SELECT id FROM {t} WHERE ({found_names}) < {p('limit')} "
            f"AND {table.typos} && {p('typo', '::text[]')} LIMIT {p('cap')})"
        )
        later.append("ty")
        none_named += " AND NOT EXISTS (SELECT 1 FROM ty)"
    # Two-edit typos by trigram word similarity: a fallback, never scanned when names matched.
    ctes.append(
        f"tg AS (SELECT id FROM {t} WHERE {p('use_trgm')} AND {none_named} "
        f"AND {p('trgm')} <%% {table.synonyms or table.name} LIMIT {NAME_CANDIDATES})"
    )
    union = " UNION ALL ".join(
        [f"SELECT id, false AS fz FROM {a}" for a in names + later] + ["SELECT id, true FROM tg"]
    )
    ctes.append(f"c AS (SELECT id, bool_or(fz) AS fz FROM ({union}) a GROUP BY id)")
    # First the name tiers of each candidate (cheap tests on its names); then, only for a
    # candidate in none of them, per query word one integer: the best field the word occurs
    # in (ranking levels), from which the coverage score and the words' idf follow.
    # A single word (most queries) needs no per-word loop: its tests read the parameters
    # directly instead of a subplan over `w` per candidate (same tests, same arithmetic).
    typo_word = f"COALESCE(g.{table.typos} && w.keys, false)" if table.typos else "false"
    if one_word:
        typo_word = (
            f"COALESCE(g.{table.typos} && {p('typo', '::text[]')}, false)"
            if table.typos
            else "false"
        )
    trigram_names = table.synonyms or table.name
    out_cols = ", ".join(f"g.{col}" for col in table.output)
    sort_cols = ", ".join(f"g.{col.split()[0]}" for col in table.sort if col.split()[0] != "id")
    pres = []
    for s in range(sides):
        name_tier = ranking.tier_case(
            exact=f"g.{table.name} = ANY({p(f'exact{s}', '::text[]')})",
            synonym=f"g.{table.exact_any} && {p(f'exact{s}', '::text[]')}"
            if table.exact_any
            else "false",
            prefix=f"(g.{table.name} LIKE {p(f'like{s}')}"
            + (f" OR g.{table.synonyms} LIKE {p(f'synlike{s}')})" if table.synonyms else ")"),
            names=f"g.{nv} @@ {p(f'names{s}', '::tsquery')}",
            fuzzy=f"(c.fz OR g.{nv} @@ {p('names0', '::tsquery')} OR {typo_word})"
            if one_word
            # A trigram candidate (`c.fz`) is fuzzy only through words that are themselves
            # close to its names: "mcp resource" must not make "Cross-Origin Resource
            # Sharing" a fuzzy match of both words (SQLite tests each word the same way).
            else f"(NOT EXISTS (SELECT 1 FROM w WHERE w.side = {s} AND NOT "
            f"(g.{nv} @@ w.nq OR {typo_word} OR (c.fz AND "
            f"word_similarity(w.word, g.{trigram_names}) >= {TRIGRAM_WORD_MIN}))))",
            score="0",  # the coverage tier comes after, from the lazily computed score
        )
        pres.append(
            f"{name_tier} AS pre{s}, similarity(g.{table.name}, {p(f'key{s}')}) AS close{s}"
        )
    unnamed = " AND ".join(f"x.pre{s} = 0" for s in range(sides))
    # The tsvectors are read here only: materialized rows without them are a fraction as wide.
    # `OFFSET 0` keeps the inner select a subquery: flattened, PostgreSQL copied each side's
    # tier `CASE` (its NOT EXISTS subplan too) into every reference to `pre{s}` and ran it
    # twice per candidate.
    keep = ", ".join(
        f"x.{col}"
        for col in (
            "id",
            *table.output,
            *(c.split()[0] for c in table.sort if c.split()[0] != "id"),
        )
    )
    keep += "".join(f", x.pre{s}, x.close{s}" for s in range(sides))
    word = {"nq": "w.nq", "dq": "w.dq", "bq": "w.bq"}
    if one_word:
        word = {
            "nq": p("names0", "::tsquery"),
            "dq": f"({p('w_d', '::tsquery[]')})[1]",
            "bq": f"({p('w_b', '::tsquery[]')})[1]",
        }
    levels = (
        f"CASE WHEN x.nv @@ {word['nq']} THEN {ranking.NAMES} "
        f"WHEN x.sv @@ {word['dq']} THEN {ranking.DEFINITION} "
        f"WHEN x.sv @@ {word['bq']} THEN {ranking.BODY} ELSE {ranking.ABSENT} END"
    )
    if one_word:
        levels = f"ARRAY[{levels}]"
    else:
        # Several words test the vector up to twice each; stored out of line (TOAST: a term's
        # row passes the 2 KB threshold), every test would fetch it again. One copy per
        # candidate (`|| ''`, in a subquery that `OFFSET 0` keeps from being inlined back
        # into each test) is read from TOAST once.
        levels = levels.replace("x.sv", "y.sv")
        levels = (
            f"(SELECT ARRAY(SELECT {levels} FROM w) "
            f"FROM (SELECT x.sv || ''::tsvector AS sv OFFSET 0) y)"
        )
    ctes.append(
        f"""f AS MATERIALIZED (
        SELECT {keep}, CASE WHEN {unnamed} THEN {levels} END AS lv
        FROM (SELECT g.id, {out_cols}, {sort_cols}, g.{nv} AS nv, g.search_vector AS sv,
                     {", ".join(pres)}
              FROM c JOIN {t} g ON g.id = c.id
              WHERE {_visibility(table, p, alias="g")} OFFSET 0) x)"""
    )
    level = "f.lv[w.i]"
    idf = ranking.IDF_SQL.format(n="d.nn", df="d.df")
    ctes.append(
        f"""idf AS (
        SELECT array_agg({idf} ORDER BY d.i) AS v FROM (
            SELECT w.i,
                   GREATEST(w.freq * {p("rows")},
                            (SELECT count(*) FROM f WHERE {level} > 0)) AS df,
                   GREATEST({p("rows")}, (SELECT count(*) FROM f)) AS nn
            FROM w) d)"""
    )
    weight = ranking.level_weight_sql(level)
    laterals, cols = [], []
    for s in range(sides):
        score = (
            f"(SELECT COALESCE(sum(idf.v[w.i] * {weight}) / NULLIF(sum(idf.v[w.i]), 0), 0) "
            f"FROM w WHERE w.side = {s})"
        )
        if one_word:  # the sums of one row: the row's own values
            one = ranking.level_weight_sql("f.lv[1]")
            score = f"COALESCE(idf.v[1] * {one} / NULLIF(idf.v[1], 0), 0)"
        laterals.append(
            f"CROSS JOIN LATERAL (SELECT CASE WHEN f.lv IS NULL THEN 0 ELSE {score} END AS v) sc{s}"
        )
        coverage = ranking.coverage_case(f"sc{s}.v")
        cols.append(f"sc{s}.v AS score{s}, GREATEST(f.pre{s}, {coverage}) AS tier{s}")
    # Materialized for the same reason: inlined, each side's score subplan ran once per use
    # (the tier, the filter, the sort key: three times per candidate).
    ctes.append(
        f"r AS MATERIALIZED (SELECT f.id, {', '.join(f'f.{c}' for c in table.output)}, "
        f"{', '.join(f'f.{c.split()[0]}' for c in table.sort if c.split()[0] != 'id')}, "
        f"{', '.join(f'f.close{s}' for s in range(sides))}, f.lv, {', '.join(cols)} "
        f"FROM f CROSS JOIN idf {' '.join(laterals)})"
    )
    out = ", ".join(f"r.{col}" for col in table.output)
    if sides == 1:
        sql = (
            f"WITH {', '.join(ctes)} (SELECT r.id, {out}, r.tier0, r.score0, r.close0, r.lv "
            f"FROM r WHERE r.tier0 > 0 "
            f"ORDER BY r.tier0 DESC, r.score0 DESC, r.close0 DESC, {table.order('r')} "
            f"LIMIT {p('limit')})"
        )
        return _Statistics.appended(sql, table, p, stats), p
    # A comparison: the best entry of each side first, then everything by its better side,
    # ties in the order of the first side ("rest vs graphql": REST, then GraphQL).
    ranks = ", ".join(
        f"row_number() OVER (ORDER BY r.tier{s} DESC, r.score{s} DESC, r.close{s} DESC, "
        f"{table.order('r')}) AS rank{s}"
        for s in range(sides)
    )
    first = " OR ".join(f"(k.rank{s} = 1 AND k.tier{s} > 0)" for s in range(sides))
    best = lambda col: f"GREATEST({', '.join(f'k.{col}{s}' for s in range(sides))})"  # noqa: E731
    ctes.append(f"k AS (SELECT r.*, {ranks} FROM r)")
    sql = (
        f"WITH {', '.join(ctes)} (SELECT k.id, {out.replace('r.', 'k.')}, {best('tier')}, "
        f"{best('score')}, {best('close')}, k.lv FROM k WHERE {best('tier')} > 0 "
        f"ORDER BY ({first}) DESC, {best('tier')} DESC, {best('score')} DESC, "
        f"{best('close')} DESC, k.rank0 LIMIT {p('limit')})"
    )
    return _Statistics.appended(sql, table, p, stats), p


def _build_short(table: Table) -> tuple[str, _Params]:
    """One or two letters: names starting so, read in order from the C-collation btree, and
    names or synonyms equal to them."""
    p = _Params()
    t = table.table
    cols = ", ".join(f"{t}.{c}" for c in table.output)
    exact_any = (
        f"UNION (SELECT id FROM {t} WHERE {table.exact_any} && {p('exact0', '::text[]')})"
        if table.exact_any
        else ""
    )
    tier = ranking.tier_case(
        exact=f"{t}.{table.name} = ANY({p('exact0', '::text[]')})",
        synonym=f"{t}.{table.exact_any} && {p('exact0', '::text[]')}"
        if table.exact_any
        else "false",
        prefix=f"{t}.{table.name} LIKE {p('like0')}",
        names="false",
        fuzzy="false",
        score="0",
    )
    sql = (
        f'WITH c AS ((SELECT id FROM {t} WHERE ({table.name} COLLATE "C") >= {p("lo0")} '
        f'AND ({table.name} COLLATE "C") < {p("hi0")} ORDER BY ({table.name} COLLATE "C") '
        f"LIMIT {NAME_CANDIDATES}) {exact_any}) "
        f"SELECT {t}.id, {cols}, {tier} AS tier, 0::float AS score, 0::float AS close, "
        f"NULL::int[] AS lv FROM c JOIN {t} ON {t}.id = c.id WHERE {_visibility(table, p)} "
        f'ORDER BY tier DESC, ({t}.{table.name} COLLATE "C"), {t}.id LIMIT {p("limit")}'
    )
    return sql, p


def _statement(table: Table, shape, stats: bool = False) -> tuple[str, _Params]:
    """The statement of a shape, built on first use (the text depends only on the shape and on
    whether the planner statistics ride along: a second text, so that the other calls' plan
    carries no read of `pg_stats` at all). Shapes: "short", "word" (one subject word: the
    partial-match arm finds nothing the name and text arms did not, and there is no single
    word of several to name exactly, so neither is in its plan), 1 (one side), 2 (two)."""
    key = (table.table, shape, stats)
    compiled = _compiled.get(key)
    if compiled is None:
        builders = {"short": _build_short, "similar": _build_similar}
        builder = builders.get(shape)
        if builder:
            sql, p = builder(table)
        else:
            sql, p = _build(table, 1 if shape == "word" else shape, stats, one_word=shape == "word")
        compiled = _compiled.setdefault(key, (p.finish(sql), p))
    return compiled


class _Statistics:
    """Per process and table: the lexeme frequencies and row count PostgreSQL's ANALYZE
    keeps (`pg_stats.most_common_elems` of `search_vector`, `pg_class.reltuples`), for the
    idf of a query's words and for skipping the partial-match arms of words found in most
    entries. Reading `pg_stats` costs ~0.3 ms, so it is read once per STATISTICS_MAX_AGE."""

    def __init__(self) -> None:
        self.tables: dict[str, tuple[float, dict, float]] = {}

    def get(self, table: Table) -> tuple[dict, float]:
        _when, frequencies, rows = self.tables.get(table.table, (0.0, {}, 0.0))
        return frequencies, rows

    def stale(self, table: Table) -> bool:
        when = self.tables.get(table.table, (None,))[0]
        return when is None or time.monotonic() - when > STATISTICS_MAX_AGE

    @staticmethod
    def appended(sql: str, table: Table, p: _Params, stats: bool) -> str:
        """`sql`, with `stats` followed by the statistics row (see `sql`)."""
        return f"{sql} UNION ALL ({_Statistics.sql(table, p)})" if stats else sql

    @staticmethod
    def sql(table: Table, p: _Params) -> str:
        """A row appended to the search's own result when stale: the lexemes and their
        frequencies space-separated in the text columns, the row count after them."""
        t = table.table
        return (
            "SELECT NULL::bigint, array_to_string(s.most_common_elems::text::text[], ' '), "
            "array_to_string(s.most_common_elem_freqs, ' '), c.reltuples::text, 0, 0::float, "
            "0::float, NULL::int[] FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = "
            f"current_schema() AND s.tablename = '{t}' AND s.attname = 'search_vector' "
            f"WHERE c.oid = '{t}'::regclass"
        )

    def put(self, table: Table, row) -> None:
        _id, elems, freqs, rows = (row or (None, "", "", "0"))[:4]
        lexemes, shares = (elems or "").split(), (freqs or "").split()
        frequencies = {w: float(f) for w, f in zip(lexemes, shares, strict=False)}
        self.tables[table.table] = (time.monotonic(), frequencies, max(float(rows or 0), 0.0))


STATISTICS = _Statistics()


def _upper(prefix: str) -> str:
    """The smallest text above every text starting with `prefix` (C collation)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1) if prefix else "\U0010ffff"


def _array(items) -> str:
    """A PostgreSQL array literal: psycopg's list dumper works per item in Python, and
    the statement takes a dozen arrays. Items are joined first and escaped only when
    one holds a quote or a backslash (query words never do: a C scan, not a Python loop)."""
    if not items:
        return "{}"
    if type(items[0]) is not str:
        items = [str(v) for v in items]
    text = '","'.join(items)
    if "\\" in text or text.count('"') != 2 * (len(items) - 1):
        text = '","'.join([v.replace("\\", "\\\\").replace('"', '\\"') for v in items])
    return '{"' + text + '"}'


def _partial_words(freqs: list[float], sides: list[int], rows: float) -> list[bool]:
    """Which words gather partial matches of their own: those in fewer than COMMON_WORD
    entries (a word in most entries costs a large index read and says little), and on each
    side at least its rarest word."""
    chosen = [f * rows < COMMON_WORD for f in freqs]
    if all(chosen):  # the common case: every word rare enough
        return chosen
    for side in set(sides):
        words_ = [i for i, s in enumerate(sides) if s == side]
        if words_ and not any(chosen[i] for i in words_):
            chosen[min(words_, key=lambda i: freqs[i])] = True
    return chosen


def _word_texts(word: Word, shortest: int, article: bool) -> tuple[str, ...]:
    """A word's `to_tsquery` texts (names: prefixes, weight A on articles, whose title is
    weight A; descriptions: weight B, prefixes and weights AB on articles; body: the stems
    exactly; text: on articles prefixes too, as titles do)."""
    return _texts(word.stems, shortest, article)


@lru_cache(maxsize=131_072)
def _texts(stems: tuple[str, ...], shortest: int, article: bool) -> tuple[str, ...]:
    """`_word_texts`, once per stems and place (a plain tuple of strings: see
    `query._analysis` on why nothing kept per word may be an object of a class)."""
    body = _tsquery(stems, "", False, shortest)
    if article:
        return (
            _tsquery(stems, "A", True, shortest),
            _tsquery(stems, "AB", True, shortest),
            body,
            _tsquery(stems, "", True, shortest),
        )
    return _tsquery(stems, "", True, shortest), _tsquery(stems, "B", False, shortest), body, body


# Each side's value names, in the order `_values` gives them.
_SIDE_NAMES = tuple(
    tuple(f"{name}{s}" for name in ("exact", "lo", "hi", "like", "synlike", "names", "text", "key"))
    for s in range(2)
)


def _values(table: Table, q: Query, limit: int, now) -> dict:
    values = {"limit": limit, "now": now, **_visibility_values.get(table.table, {})}
    records, n = q.records, len(q.records)
    # Each word's tsquery texts (a side's texts are these joined).
    texts = [_word_texts(w, q.prefix_min(i), table.article) for i, w in enumerate(records)]
    w_n = [t[0] for t in texts]
    w_text = [t[3] for t in texts]
    if q.comparison:
        segment_of = [q.word_segment(i) for i in range(n)]
        for s, segment in enumerate(q.segments):
            indexes = [i for i in range(n) if segment_of[i] == s]
            names = " & ".join([w_n[i] for i in indexes])
            text = " & ".join([w_text[i] for i in indexes])
            side = _side(segment.key, [segment.key], names, text)
            values.update(zip(_SIDE_NAMES[s], side, strict=True))
    else:
        segment_of = [0] * n
        # An article whose title holds the query's words as typed (question words too:
        # "czym jest mcp") is the closest of its tier.
        close = q.full_key if table.article else q.key
        side = _side(q.key, q.exact_texts, " & ".join(w_n), " & ".join(w_text), close)
        values.update(zip(_SIDE_NAMES[0], side, strict=True))
    values["w_n"] = w_n
    values["w_d"] = [t[1] for t in texts]
    values["w_b"] = [t[2] for t in texts]
    values["w_side"] = segment_of
    values["w_keys"] = [w.keys_text for w in records]
    frequencies, rows = STATISTICS.get(table)
    values["rows"] = rows
    values["w_freq"] = freqs = [frequencies.get(w.stems[0], 0.0) for w in records]
    values["w_try"] = _partial_words(freqs, segment_of, rows)
    values["w_word"] = w_word = [w.folded for w in records]
    values["cap"] = max(limit, 10) + 10
    values["words"] = w_word if n > 1 else []
    values["typo"] = list(max([w.keys for w in records], key=len, default=()))
    values["use_trgm"] = q.fuzzy and len(q.key) <= TRIGRAM_MAX_CHARS
    values["trgm"] = q.key
    return values


def _side(key: str, exact: list[str], names: str, text: str, close: str = "") -> tuple:
    """One side's values, in `_SIDE_NAMES` order; `close` is what the names' closeness is
    measured against (the side's `key` unless given)."""
    escaped = _like_escape(key)
    return exact, key, _upper(key), escaped + "%", "%| " + escaped + "%", names, text, close or key


def _shape(q: Query):
    return "short" if q.short else (2 if q.comparison else ("word" if len(q.words) == 1 else 1))


def _filled(table: Table, q: Query, limit: int, now, shape, stats: bool) -> tuple[str, list]:
    sql, p = _statement(table, shape, stats)  # first: it compiles the visibility values
    values = _values(table, q, limit, now)
    if shape == "short":
        text = q.short_text
        values["exact0"], values["like0"] = [text], _like_escape(text) + "%"
        values["lo0"], values["hi0"] = text, _upper(text)
    return sql, p.fill(values)


def ranked_statement(table: Table, q: Query, limit: int, now) -> tuple[str, list] | None:
    """`rows`' statement and parameters, for a caller that reads its ids (in rank order: its
    outermost ORDER BY) inside a statement of its own; None when the planner statistics are
    due for a refresh, which only `rows` reads."""
    shape = _shape(q)
    if shape != "short" and STATISTICS.stale(table):
        return None
    return _filled(table, q, limit, now, shape, False)


def rows(table: Table, q: Query, limit: int, now) -> list[tuple]:
    """(id, slug, title, summary, tier, score, closeness, levels) best first."""
    shape = _shape(q)
    stats = shape != "short" and STATISTICS.stale(table)
    sql, params = _filled(table, q, limit, now, shape, stats)
    cursor = kept_cursor(connections[DEFAULT_DB_ALIAS], sql)  # its adapters kept (prepared.py)
    cursor.execute(sql, params)
    found = cursor.fetchall()
    if stats:
        STATISTICS.put(table, next((r for r in found if r[0] is None), None))
    return [r for r in found if r[0] is not None]


def match_condition(q: Query) -> tuple[str, list]:
    """A boolean SQL condition on `glossary_term` true for the terms the engine matches
    (the admin's search box over drafts too: no caps, no ranking)."""
    values = _values(TERMS, q, 0, None)
    sides = range(len(q.segments) if q.comparison else 1)
    parts, params = [], []
    for s in sides:
        parts += [
            "name_folded = ANY(%s::text[])",
            "names_array && %s::text[]",
            "name_folded LIKE %s",
            "names_vector @@ to_tsquery('simple', %s)",
            "search_vector @@ to_tsquery('simple', %s)",
        ]
        params += [values[f"exact{s}"], values[f"exact{s}"], values[f"like{s}"]]
        params += [values[f"names{s}"], values[f"text{s}"]]
    if values["typo"]:
        parts.append("typo_array && %s::text[]")
        params.append(values["typo"])
    if values["use_trgm"]:
        parts.append("%s <%% search_names")
        params.append(values["trgm"])
    return "(" + " OR ".join(parts) + ")", params


def similar_names(q: Query, limit: int, now) -> list[tuple]:
    """Terms whose name or a synonym is closest to the text, for "did you mean"."""
    sql, p = _statement(TERMS, "similar")
    values = {
        "key": q.key,
        "keys": [k for keys in q.typo_keys for k in keys],
        "limit": limit,
        "now": now,
        **_visibility_values.get(TERMS.table, {}),
    }
    cursor = kept_cursor(connections[DEFAULT_DB_ALIAS], sql)
    cursor.execute(sql, p.fill(values))
    return cursor.fetchall()


def _build_similar(table: Table) -> tuple[str, _Params]:
    p = _Params()
    t = table.table
    sql = (
        f"SELECT id, slug, name, short_definition, GREATEST(similarity(name_folded, {p('key')}), "
        f"word_similarity({p('key')}, search_names)) AS closeness FROM {t} "
        f"WHERE ({p('key')} <%% search_names OR typo_array && {p('keys', '::text[]')}) "
        f"AND {_visibility(table, p)} ORDER BY closeness DESC, sort_key, id LIMIT {p('limit')}"
    )
    return sql, p
