"""Relevance per class of query (tests/glossary/data/relevance/): long agent requests, a typo
next to a correct word, English vocabulary, colloquial Polish, inflected forms in a sentence,
descriptions without the name, symptoms, and requests whose words are mostly absent from the
term ("empty"), over the demo glossary and a glossary of about 120 infrastructure terms.

Prints MRR, top-1, top-3 and top-10 per glossary and class (the table of bench/relevance.py)
and holds a floor per backend, glossary and class. The rule for a floor: the value measured
on main when it was set, minus 0.02, rounded down to two decimals; so the suite passes on the
engine it was measured on and fails when a class regresses. Floors are raised when the engine
improves and never lowered to let a change through.
"""

import json

import pytest
from django.db import connection

from glossary.management.commands.load_demo import DEMO_DIR
from tests.glossary.data import relevance

pytestmark = pytest.mark.django_db

# Fewest queries per class, per glossary.
MINIMUM_PER_CLASS = {"demo": 12, "infra": 10}

# MRR floors per backend, glossary and class (the rule in the module docstring).
MRR_FLOORS = {
    "postgresql": {
        "demo": {
            "long": 0.79, "typo": 0.94, "english": 0.75, "colloquial": 0.76,
            "inflected": 0.94, "description": 0.86, "symptom": 0.62, "empty": 0.33,
        },
        "infra": {
            "long": 0.66, "typo": 0.98, "english": 0.94, "colloquial": 0.56,
            "inflected": 0.89, "description": 0.67, "symptom": 0.62, "empty": 0.31,
        },
    },
    "sqlite": {
        "demo": {
            "long": 0.78, "typo": 0.98, "english": 0.76, "colloquial": 0.76,
            "inflected": 0.90, "description": 0.86, "symptom": 0.64, "empty": 0.33,
        },
        "infra": {
            "long": 0.66, "typo": 0.98, "english": 0.94, "colloquial": 0.56,
            "inflected": 0.92, "description": 0.67, "symptom": 0.62, "empty": 0.31,
        },
    },
}  # fmt: skip

# The "empty" class counts a term as found when it is anywhere in the top ten: the share of
# its queries that find their term, per backend and glossary (same rule).
FOUND_FLOORS = {
    "postgresql": {"demo": 0.67, "infra": 0.59},
    "sqlite": {"demo": 0.67, "infra": 0.59},
}


@pytest.fixture(scope="module")
def results(django_db_setup, django_db_blocker):
    """Per glossary, the result of every query (each glossary loaded once and rolled back)."""
    with django_db_blocker.unblock():
        return {name: relevance.run(name) for name in relevance.GLOSSARIES}


def _slugs(glossary: str) -> set[str]:
    folder = relevance.GLOSSARIES[glossary] or DEMO_DIR
    return {term["slug"] for term in json.loads((folder / "terms.json").read_text("utf-8"))}


@pytest.mark.parametrize("glossary", list(relevance.GLOSSARIES))
def test_query_sets_cover_every_class(glossary):
    """Every class has its minimum of queries over each glossary (12 on the demo, 10 on the
    infrastructure glossary), no query text is repeated, and every expected slug is a term of
    that glossary (at most two acceptable slugs per query)."""
    queries = relevance.queries(glossary)
    counts = {kind: 0 for kind in relevance.CLASSES}
    for query in queries:
        counts[query.kind] += 1
    assert min(counts.values()) >= MINIMUM_PER_CLASS[glossary], counts
    assert len({q.text.casefold() for q in queries}) == len(queries)
    slugs = _slugs(glossary)
    for query in queries:
        assert 1 <= len(query.expected) <= 2, query
        assert set(query.expected) <= slugs, query


def test_infrastructure_glossary_is_realistic():
    """The second glossary has about a hundred terms, each with a short definition of at
    most 300 characters, a body, a category and synonyms, some of them English."""
    terms = json.loads((relevance.HERE / "infra" / "terms.json").read_text("utf-8"))
    assert 100 <= len(terms) <= 150
    for term in terms:
        assert 0 < len(term["short_definition"]) <= 300, term["slug"]
        assert term["body"].strip() and term["categories"], term["slug"]
        assert len(term["synonyms"]) >= 2, term["slug"]
    ascii_synonyms = sum(1 for t in terms if any(s.isascii() for s in t["synonyms"]))
    assert ascii_synonyms >= len(terms) // 2


def test_report(results, capsys):
    """Prints the table per glossary and class, and the queries not ranked first."""
    with capsys.disabled():
        print("\n" + relevance.report(results, connection.vendor))


@pytest.mark.parametrize("glossary", list(relevance.GLOSSARIES))
@pytest.mark.parametrize("kind", list(relevance.CLASSES))
def test_class_holds_its_floor(results, glossary, kind):
    """Each class's MRR over each glossary stays at or above its floor on this backend."""
    group = relevance.by_class(results[glossary])[kind]
    score = relevance.Score.of(group)
    floor = MRR_FLOORS[connection.vendor][glossary][kind]
    missed = [(r.query.text, r.rank, r.top[:3]) for r in group if r.rank != 1]
    assert score.mrr >= floor, (round(score.mrr, 3), floor, missed)


@pytest.mark.parametrize("glossary", list(relevance.GLOSSARIES))
def test_empty_class_finds_its_term_in_the_top_ten(results, glossary):
    """A request whose words are mostly absent from its term still finds the term somewhere
    in the top ten at least as often as the floor says."""
    group = relevance.by_class(results[glossary])["empty"]
    score = relevance.Score.of(group)
    floor = FOUND_FLOORS[connection.vendor][glossary]
    missed = [r.query.text for r in group if r.rank is None]
    assert score.top10 >= floor, (round(score.top10, 3), floor, missed)
