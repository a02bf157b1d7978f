"""The SQLite engine (the embedded default): the same tiers and coverage score in Python.

SQLite has no search indexes, so one statement selects the rows that may match (`LIKE` over
the space-padded stem columns, evaluated in C) with a flag per query word for the body, and
Python computes each row's features and walks `ranking.TIERS`. Linear in the glossary's
size: fine for the few thousand terms of an embedded glossary. Document frequencies are
exact here (every row containing a word is a candidate), where PostgreSQL estimates them.
"""

from __future__ import annotations

from django.db.models import BooleanField, ExpressionWrapper, Q
from django.db.models.expressions import RawSQL
from rapidfuzz.distance import Levenshtein

from ..models import Article, Term
from ..polish import fold
from ..stemming import TYPO_MIN_LENGTH, words
from . import ranking
from .query import GUESS_PREFIX, Query

# The admin's search on SQLite keeps at most this many ranked matches.
ADMIN_LIMIT = 1000


def _body_flags(q: Query, column: str) -> dict:
    flags = {}
    for i, alternatives in enumerate(q.alternatives):
        cond = Q()
        for s in alternatives:
            cond |= Q(**{f"{column}__contains": f" {s} "})
        flags[f"_w{i}"] = ExpressionWrapper(cond, output_field=BooleanField())
    return flags


def _prefilter(q: Query, names: str, definition: str, body: str, folded: str) -> Q:
    """Rows that can reach any tier: a name prefix, a stem of some word, or a likely typo."""
    terms = names == "stems_names"
    # An article's lead matches word prefixes, as its title does; a term's definition stems.
    lead = " {} " if terms else " {}"
    cond = Q(pk__in=[])
    for segment in q.segments:
        cond |= Q(**{f"{folded}__startswith": segment.key})
        if terms:
            cond |= Q(search_names__contains=f"| {segment.key}")
    for alternatives in q.alternatives:
        for s in alternatives:
            cond |= Q(**{f"{names}__contains": f" {s}"})
            cond |= Q(**{f"{definition}__contains": lead.format(s)})
            cond |= Q(**{f"{body}__contains": f" {s} "})
    if terms:
        for keys in q.typo_keys:
            for key in keys:
                cond |= Q(typo_keys__contains=f" {key} ")
    names_text = "search_names" if terms else folded
    for word in q.words:
        if len(word) >= TYPO_MIN_LENGTH:
            cond |= Q(**{f"{names_text}__contains": fold(word)[:4]})
    return cond


def _typo_of_name(keys: tuple[str, ...], typos: str) -> bool:
    """A query word one edit or swap from a word of the name: they share a deletion key
    (the `typo_array` overlap PostgreSQL tests)."""
    return bool(keys) and bool(typos) and any(f" {k} " in typos for k in keys)


def _typo_close(word: str, name_words: list[str]) -> bool:
    """Within two edits of a name word, or one edit of the start of a longer one (a word
    still being typed), as PostgreSQL's deletion keys and trigram similarity find."""
    if len(word) < TYPO_MIN_LENGTH:
        return False
    return any(
        Levenshtein.distance(word, w, score_cutoff=2) <= 2
        or (len(w) > len(word) and Levenshtein.distance(word, w[: len(word)], score_cutoff=1) <= 1)
        for w in name_words
    )


def _similarity(a: str, b: str) -> float:
    """pg_trgm's `similarity()`."""

    def grams(text):
        out = set()
        for w in words(text):
            padded = f"  {w} "
            out.update(padded[i : i + 3] for i in range(len(padded) - 2))
        return out

    ta, tb = grams(a), grams(b)
    return len(ta & tb) / len(ta | tb) if ta and tb else 0.0


def _rank(q: Query, rows, *, article: bool) -> list[tuple]:
    """Rows of (id, slug, title, summary, sort, folded, names, typo keys, stems_names,
    stems_def, *body flags) ranked as PostgreSQL ranks them: (id, slug, title, summary, tier, score,
    closeness, levels) best first."""
    sides = [
        [i for i in range(len(q.words)) if q.word_segment(i) == s] for s in range(len(q.segments))
    ]
    texts = [q.exact_texts] if not q.comparison else [[s.key] for s in q.segments]
    keys = [q.short_text if q.short else q.key] if not q.comparison else [s.key for s in q.segments]
    if q.short:
        texts = [[q.short_text]]
    # An article whose title holds the query's words as typed (question words too: "czym
    # jest mcp") is the closest of its tier, as on PostgreSQL.
    close_keys = [q.full_key] if article and not q.comparison else keys
    if not q.comparison:
        sides = [list(range(len(q.words)))]
    prepared = []
    for pk, slug, title, summary, sort, folded, names, typos, stems_names, stems_def, *body in rows:
        levels = []
        for i in range(len(q.words)):
            if q.word_matches(i, stems_names):
                levels.append(ranking.NAMES)
            elif q.word_matches(i, stems_def, prefix=article):
                levels.append(ranking.DEFINITION)
            elif body[i]:
                levels.append(ranking.BODY)
            else:
                levels.append(ranking.ABSENT)
        # The name tiers read the names' stems; the coverage score also a typo of a name word.
        covered = [
            ranking.NAMES if _typo_of_name(q.records[i].keys, typos) else level
            for i, level in enumerate(levels)
        ]
        name_words = list(dict.fromkeys(words(names or folded)))
        typo = [not q.short and _typo_close(fold(w), name_words) for w in q.words]
        if q.short:  # one or two letters: name prefixes and exact names only
            levels = covered = [ranking.ABSENT] * len(levels)
        variants = [v.strip() for v in (names or "").split("|") if v.strip()]
        prepared.append((pk, slug, title, summary, sort, folded, variants, covered, typo, levels))
    n = max(len(prepared), 1)
    df = [sum(1 for r in prepared if r[7][i] > 0) for i in range(len(q.words))]
    named = [any(r[7][i] == ranking.NAMES for r in prepared) for i in range(len(q.words))]
    weights = [ranking.idf(n, d) * (1.0 if named[i] else q.weights[i]) for i, d in enumerate(df)]
    out = []
    for pk, slug, title, summary, sort, folded, variants, covered, typo, levels in prepared:
        features = ranking.Features(
            exact=[folded in t for t in texts],
            synonym=[any(v in t for v in variants) for t in texts],
            prefix=[folded.startswith(k) or any(v.startswith(k) for v in variants) for k in keys],
            levels=levels,
            typo=typo,
            sides=sides,
            scores=[ranking.coverage(covered, weights, side) for side in sides],
        )
        tiers = [ranking.tier_of(features, s) for s in range(len(sides))]
        if max(tiers) == 0:
            continue
        closeness = [0.0 if q.short else _similarity(k, folded) for k in close_keys]
        out.append((pk, slug, title, summary, sort, tiers, features.scores, closeness, covered))

    def order(s):
        return lambda r: (-r[5][s], -r[6][s], -r[7][s], r[4], r[0])

    # Same tie-breaks as PostgreSQL: articles newest first, terms in Polish order.
    if article:
        out.sort(key=lambda r: r[0], reverse=True)
        out.sort(key=lambda r: r[4], reverse=True)
        out.sort(key=lambda r: (-r[5][0], -r[6][0], -r[7][0]))
    else:
        out.sort(key=order(0))
    if q.comparison:
        firsts = set()
        for s in range(len(sides)):
            best = sorted(
                (r for r in out if r[5][s] > 0),
                key=(lambda r, s=s: (-r[5][s], -r[6][s], -r[7][s], r[4], r[0])),
            )
            if best:
                firsts.add(best[0][0])
        out.sort(key=lambda r: (r[0] not in firsts, -max(r[5]), -max(r[6]), -max(r[7])))
    return [
        (pk, slug, title, summary, max(tiers), max(scores), max(close), levels)
        for pk, slug, title, summary, _sort, tiers, scores, close, levels in out
    ]


def term_rows(q: Query, limit: int, base=None) -> list[tuple]:
    qs = Term.objects.published() if base is None else base
    if q.short:
        qs = qs.filter(Q(name_folded__startswith=q.key) | Q(search_names__contains=f"| {q.key} |"))
    else:
        qs = qs.filter(
            _prefilter(q, "stems_names", "stems_definition", "stems_body", "name_folded")
        )
    rows = qs.annotate(**_body_flags(q, "stems_body")).values_list(
        "id", "slug", "name", "short_definition", "sort_key", "name_folded", "search_names",
        "typo_keys", "stems_names", "stems_definition", *[f"_w{i}" for i in range(len(q.words))],
    )  # fmt: skip
    return _rank(q, rows, article=False)[:limit]


def article_rows(q: Query, limit: int) -> list[tuple]:
    qs = Article.objects.published()
    if q.short:
        qs = qs.filter(title_folded__startswith=q.short_text)
    else:
        qs = qs.filter(_prefilter(q, "stems_title", "stems_lead", "stems_body", "title_folded"))
    rows = qs.annotate(
        _names=RawSQL("''", []), _typos=RawSQL("''", []), **_body_flags(q, "stems_body")
    ).values_list(
        "id", "slug", "title", "lead", "published_at", "title_folded", "_names", "_typos",
        "stems_title",
        "stems_lead", *[f"_w{i}" for i in range(len(q.words))],
    )  # fmt: skip
    return _rank(q, rows, article=True)[:limit]


def similar_names(q: Query, limit: int) -> list[tuple]:
    """Terms whose name or a synonym is closest to the text, for "did you mean"."""
    scored = []
    rows = Term.objects.published().values_list(
        "id", "slug", "name", "short_definition", "sort_key", "search_names"
    )
    for pk, slug, name, short, sort, names in rows:
        variants = [v.strip() for v in names.split("|") if v.strip()]
        closeness = max(
            [_similarity(q.key, v) for v in variants] + [_similarity(q.key, slug.replace("-", " "))]
        )
        name_words = words(fold(name))
        close_word = any(
            len(w) >= TYPO_MIN_LENGTH
            and any(Levenshtein.distance(fold(w), n, score_cutoff=1) <= 1 for n in name_words)
            for w in q.words
        )
        # A name word beginning like a subject word (PostgreSQL: `LIKE ANY(guess_patterns)`).
        starts = [w.folded[:GUESS_PREFIX] for w in q.records if len(w.folded) >= GUESS_PREFIX]
        begins = any(f" {start}" in names for start in starts)
        if closeness >= 0.3 or close_word or begins:
            scored.append((-closeness, sort, pk, slug, name, short))
    scored.sort()
    return [(pk, slug, name, short, -c) for c, _s, pk, slug, name, short in scored[:limit]]
