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
from __future__ import annotations

from functools import lru_cache

from django.db import DEFAULT_DB_ALIAS, connections

from ..db.cursors import kept_cursor
from .query import Query, Word, _like_escape, _tsquery
from .statements import (
    COMMON_WORD,
    TERMS,
    TRIGRAM_MAX_CHARS,
    Table,
    _statement,
    _Statistics,
    _visibility_values,
)

STATISTICS = _Statistics()
TYPO_WORDS = 2


def _upper(prefix: str) -> str:
    """The smallest text above every text starting with `prefix` (C collation)."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1) if prefix else "\U0010ffff"


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
    return _texts(word.stems, word.bases, shortest, article)


@lru_cache(maxsize=131_072)
def _texts(
    stems: tuple[str, ...], bases: tuple[str, ...], shortest: int, article: bool
) -> tuple[str, ...]:
    """`_word_texts`, once per stems and place (a plain tuple of strings: see
    `query._analysis` on why nothing kept per word may be an object of a class)."""
    exact = frozenset(bases)
    body = _tsquery(stems, "", False, shortest)
    if article:
        return (
            _tsquery(stems, "A", True, shortest, exact),
            _tsquery(stems, "AB", True, shortest, exact),
            body,
            _tsquery(stems, "", True, shortest, exact),
        )
    names = _tsquery(stems, "", True, shortest, exact)
    return names, _tsquery(stems, "B", False, shortest), body, body


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
    # The typo keys of the TYPO_WORDS longest words: the misspelled word is not always the
    # longest, and each word's keys are a dozen index probes more.
    longest = sorted(records, key=lambda w: -len(w.keys))[:TYPO_WORDS]
    values["typo"] = list(dict.fromkeys(k for w in longest for k in w.keys))
    values["w_weight"] = q.weights
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
        "guess": q.guess_patterns,
        "limit": limit,
        "now": now,
        **_visibility_values.get(TERMS.table, {}),
    }
    cursor = kept_cursor(connections[DEFAULT_DB_ALIAS], sql)
    cursor.execute(sql, p.fill(values))
    return cursor.fetchall()
