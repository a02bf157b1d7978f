"""The engine's debug mode: how it read a query and why each hit ranks where it does, as plain
data (tests read it; `manage.py explain_search "…"` prints it as JSON for an editor asking why a
term does not come first).

It runs the same search as every surface (`find_terms`: the engine's statement, its fallbacks,
the semantic arm when on) and reads back what the engine already computed: the subject words
with their stems and weights, the words dropped as question or request frames, per hit its tier
and, for a coverage match, the field each word was found in.
"""

from __future__ import annotations

from ..stemming import words
from . import find_terms, ranking, semantic
from .query import Query, word

LEVELS = {
    ranking.NAMES: "names",
    ranking.DEFINITION: "definition",
    ranking.BODY: "body",
    ranking.ABSENT: "absent",
}


def explain(query: str, *, limit: int = 10) -> dict:
    """JSON-ready account of how `query` was read and ranked (see the module docstring)."""
    q = Query(query)
    answer = find_terms(query=query, limit=limit)
    kept = {w.text for w in q.records}
    typed = words(query if isinstance(query, str) else "")
    return {
        "query": query,
        "read_as": [" ".join(side.words) for side in q.segments],
        "comparison": q.comparison,
        "request": q.request,
        "words": [
            {"word": w.text, "stems": list(w.stems), "weight_unless_named": weight}
            for w, weight in zip(q.records, q.weights, strict=True)
        ],
        "dropped": [t for t in dict.fromkeys(typed) if t not in kept and word(t).stop],
        "corrections": answer.corrections,
        "did_you_mean": answer.did_you_mean,
        "weak": answer.weak,
        "semantic": semantic.model_name() or None,
        "hits": [_hit(hit, q) for hit in answer.hits],
    }


def _hit(hit, q: Query) -> dict:
    levels = getattr(hit, "levels", ())
    out = {"slug": hit.slug, "match": hit.match, "score": hit.score, "weak": hit.weak}
    if levels and len(levels) == len(q.words):
        pairs = zip(q.words, levels, strict=True)
        out["found_in"] = {w: LEVELS.get(level, "absent") for w, level in pairs}
    return out
