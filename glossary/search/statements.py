"""The statements of the PostgreSQL engine (glossary/search/postgres.py), built from this
module's constant fragments: one text per table and shape (short queries, one word, one-sided,
two-sided, each with and without the planner statistics), compiled once per process; the
engine only fills their parameters. How a statement finds and ranks its candidates is said in
postgres.py's docstring."""

# SQL is composed here from this module's constant fragments and column names only; every value
# derived from a query travels as a parameter (`_Params`).
# ruff: noqa: S608
from __future__ import annotations

import operator
import re
import time

from django.db import connection

from ..db.cache import LRU
from ..db.placeholders import CLOCK, locate
from ..models import Article, Term
from . import ranking

NAME_CANDIDATES = 50  # typo and trigram arms; name and text arms take limit + 10
WORD_CANDIDATES = 8
COMMON_WORD = 5000  # entries above which a word gathers no partial matches of its own
STATISTICS_MAX_AGE = 600  # seconds a process keeps the planner statistics it read
TRIGRAM_MAX_CHARS = 16  # ~18 trigrams: a few ms at 100k terms
# A word of a trigram candidate is fuzzy-close to its names from this word similarity on: two
# edits inside a nine-letter word keep 4 of its 10 trigrams ("strimable" ~ "streamable" 0.5),
# an unrelated word keeps none.
TRIGRAM_WORD_MIN = 0.4


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
               u.freq, u.try, u.word, u.weight
        FROM unnest({p("w_n", "::tsquery[]")}, {p("w_d", "::tsquery[]")}, {p("w_b", "::tsquery[]")},
                    {p("w_side", "::int[]")}, {p("w_keys", "::text[]")}, {p("w_freq", "::float[]")},
                    {p("w_try", "::bool[]")}, {p("w_word", "::text[]")},
                    {p("w_weight", "::float[]")})
             WITH ORDINALITY AS u(nq, dq, bq, side, keys, freq, try, word, weight, i))""",
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
        [
            f"SELECT id, false AS fz, {'true' if a == 'ty' else 'false'} AS tk FROM {a}"
            for a in names + later
        ]
        + ["SELECT id, true, false FROM tg"]
    )
    ctes.append(
        f"c AS (SELECT id, bool_or(fz) AS fz, bool_or(tk) AS tk FROM ({union}) a GROUP BY id)"
    )
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
    word = {"nq": "w.nq", "dq": "w.dq", "bq": "w.bq", "keys": "w.keys"}
    if one_word:
        word = {
            "nq": p("names0", "::tsquery"),
            "dq": f"({p('w_d', '::tsquery[]')})[1]",
            "bq": f"({p('w_b', '::tsquery[]')})[1]",
            "keys": p("typo", "::text[]"),
        }
    # A word one typo away from a name word is in the names: the misspelled word of a query
    # is often the one that names its subject, whatever the other words matched. Only the
    # candidates the typo arm found carry their keys here: copying every candidate's keys
    # into `f` cost more than the whole test (docs/benchmarks.md, "Search that holds up").
    typo_keys_column = f"CASE WHEN c.tk THEN g.{table.typos} END AS ty, " if table.typos else ""
    typo_level = (
        f"WHEN COALESCE(x.ty && {word['keys']}, false) THEN {ranking.NAMES} " if table.typos else ""
    )
    levels = (
        f"CASE WHEN x.nv @@ {word['nq']} THEN {ranking.NAMES} {typo_level}"
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
                     {typo_keys_column}{", ".join(pres)}
              FROM c JOIN {t} g ON g.id = c.id
              WHERE {_visibility(table, p, alias="g")} OFFSET 0) x)"""
    )
    level = "f.lv[w.i]"
    idf = ranking.IDF_SQL.format(n="d.nn", df="d.df")
    # A word no candidate has in its names weighs `w.weight` (query.Query.weights) of its
    # idf: the words that name concepts carry a request, the task around them does not.
    ctes.append(
        f"""idf AS (
        SELECT array_agg({idf} * d.weight ORDER BY d.i) AS v FROM (
            SELECT w.i,
                   GREATEST(w.freq * {p("rows")},
                            (SELECT count(*) FROM f WHERE {level} > 0)) AS df,
                   GREATEST({p("rows")}, (SELECT count(*) FROM f)) AS nn,
                   CASE WHEN EXISTS (SELECT 1 FROM f WHERE {level} = {ranking.NAMES}) THEN 1
                        ELSE w.weight END AS weight
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


def _build_similar(table: Table) -> tuple[str, _Params]:
    p = _Params()
    t = table.table
    sql = (
        f"SELECT id, slug, name, short_definition, GREATEST(similarity(name_folded, {p('key')}), "
        f"word_similarity({p('key')}, search_names)) AS closeness FROM {t} "
        f"WHERE ({p('key')} <%% search_names OR typo_array && {p('keys', '::text[]')} "
        f"OR search_names LIKE ANY({p('guess', '::text[]')})) "
        f"AND {_visibility(table, p)} ORDER BY closeness DESC, sort_key, id LIMIT {p('limit')}"
    )
    return sql, p
