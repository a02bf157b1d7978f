"""The relevance suite per class: queries written the way readers and agents ask when they do
not know a term's name, over two glossaries, scored the same way by the test
(tests/glossary/test_search_classes.py) and the harness (bench/relevance.py).

The glossaries: `demo` (glossary/demo/, what `manage.py load_demo` loads) and `infra` (about
120 terms on databases, networks, DevOps and the web, in `infra/terms.json`, the import
format). The queries of a glossary are `<glossary>.json`: per class, rows of
`[query, slug]` or `[query, slug, second acceptable slug]`. A query's rank is the position of
the first acceptable slug in the top ten of `find_terms` (what the MCP tool `search_term`,
the REST `/search` route and the search page answer: the engine's hits, or its closest
guesses when nothing matched), `None` when it is not there.

The queries were written without looking at the engine and are not to be tuned to it: a query
that fails is a finding, not a typo to fix.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
TOP = 10

# The classes, in the order they are reported, with what each one holds.
CLASSES = {
    "long": "long agent requests: 8-20 words, a task around the concept (Polish and English)",
    "typo": "a typo next to a correctly spelled word, often in the word naming the concept",
    "english": "English vocabulary inside Polish or English queries",
    "colloquial": "colloquial Polish: slang, anglicisms, diminutives",
    "inflected": "inflected forms inside a sentence: locative, instrumental, plural",
    "description": "the concept described without its name, Polish and English",
    "symptom": "the symptom of a problem the concept explains",
    "empty": "a related term exists, but the query's words are mostly absent from it",
}

# The glossaries, in the order they are reported: where `load_demo --directory` finds each
# one's terms.json (None: the demo's own folder).
GLOSSARIES = {"demo": None, "infra": HERE / "infra"}


@dataclass(frozen=True)
class Query:
    glossary: str
    kind: str
    text: str
    expected: tuple[str, ...]


@dataclass(frozen=True)
class Result:
    query: Query
    rank: int | None
    top: tuple[str, ...]


@dataclass(frozen=True)
class Score:
    count: int
    mrr: float
    top1: float
    top3: float
    top10: float

    @classmethod
    def of(cls, results: list[Result]) -> Score:
        ranks = [r.rank for r in results]
        n = len(ranks) or 1
        return cls(
            count=len(ranks),
            mrr=sum(1 / r for r in ranks if r) / n,
            top1=sum(1 for r in ranks if r == 1) / n,
            top3=sum(1 for r in ranks if r and r <= 3) / n,
            top10=sum(1 for r in ranks if r) / n,
        )


def queries(glossary: str) -> list[Query]:
    """The queries over `glossary`, class by class in `CLASSES` order."""
    data = json.loads((HERE / f"{glossary}.json").read_text(encoding="utf-8"))
    unknown = set(data) - set(CLASSES)
    if unknown:
        raise ValueError(f"{glossary}.json: unknown classes {sorted(unknown)}")
    return [
        Query(glossary, kind, row[0], tuple(row[1:]))
        for kind in CLASSES
        for row in data.get(kind, [])
    ]


def load(glossary: str) -> None:
    """Load `glossary` into the current database through `manage.py load_demo`."""
    from django.core.management import call_command

    directory = GLOSSARIES[glossary]
    options = {"directory": directory} if directory else {}
    call_command("load_demo", verbosity=0, **options)


def run(glossary: str) -> list[Result]:
    """Load `glossary` in a transaction, search every one of its queries, roll back."""
    from django.db import transaction

    from glossary.search import find_terms

    results = []
    with transaction.atomic():
        load(glossary)
        for query in queries(glossary):
            top = tuple(hit.slug for hit in find_terms(query=query.text, limit=TOP).hits)
            rank = next((i for i, slug in enumerate(top, 1) if slug in query.expected), None)
            results.append(Result(query, rank, top))
        transaction.set_rollback(True)
    return results


def by_class(results: list[Result]) -> dict[str, list[Result]]:
    out: dict[str, list[Result]] = {}
    for result in results:
        out.setdefault(result.query.kind, []).append(result)
    return out


def report(results_by_glossary: dict[str, list[Result]], vendor: str) -> str:
    """The table: per glossary and class MRR, top-1, top-3, top-10 and count, then the
    queries whose expected term is not first; then the overall line."""
    header = f"{'':<14}{'MRR':>7}{'top-1':>8}{'top-3':>8}{'top-10':>8}{'n':>5}"
    lines = [f"relevance per class on {vendor}", header]
    misses: list[str] = []
    everything: list[Result] = []
    for glossary, results in results_by_glossary.items():
        everything += results
        lines.append(_row(glossary, Score.of(results)))
        for kind, group in by_class(results).items():
            lines.append(_row("  " + kind, Score.of(group)))
        for r in results:
            if r.rank != 1:
                misses.append(
                    f"  {glossary}/{r.query.kind} {r.rank or '—':>2}  {r.query.text!r}"
                    f" → {'/'.join(r.query.expected)}; got {', '.join(r.top[:3]) or 'nothing'}"
                )
    if len(results_by_glossary) > 1:
        lines.append(_row("overall", Score.of(everything)))
        for kind, group in by_class(everything).items():
            lines.append(_row("  " + kind, Score.of(group)))
    lines += ["", "not first (rank, query → expected; got the first three):", *misses]
    return "\n".join(lines)


def _row(label: str, s: Score) -> str:
    return f"{label:<14}{s.mrr:>7.3f}{s.top1:>8.1%}{s.top3:>8.1%}{s.top10:>8.1%}{s.count:>5}"
