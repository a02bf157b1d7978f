"""`glossary.prepared.Prepared`: term_detail's SQL is compiled once and re-run with new
values; it must behave exactly like evaluating the QuerySets each time (same rows, same
visibility, same clock)."""

from dataclasses import astuple
from datetime import timedelta

import pytest
from django.utils import timezone

from glossary import selectors
from glossary.models import Term
from tests.factories import (
    make_article,
    make_category,
    make_draft_term,
    make_future_term,
    make_term,
)

pytestmark = pytest.mark.django_db


def _orm_detail(slug):
    """term_detail written with plain QuerySets, as it was before compiling once."""
    term = Term.objects.published().select_related("last_editor").filter(slug=slug).first()
    if term is None:
        return None
    now = timezone.now()
    rows = list(selectors._term_links(pk=term.pk, now=now))
    return term, sorted(rows, key=lambda r: (r[0], r[1]))


def test_prepared_term_detail_matches_the_queryset():
    """The compiled statements return the same term and links as the QuerySets they came from."""
    category = make_category("Sieci")
    related = make_term("Klient")
    term = make_term("Serwer", synonyms=["host"])
    term.categories.add(category)
    term.related.add(related)
    make_article(terms=[term])
    for _ in range(2):  # the second call runs the cached statements
        detail = selectors.term_detail(slug=term.slug)
        orm_term, orm_links = _orm_detail(term.slug)
        fields = [f.attname for f in Term._meta.concrete_fields]
        assert [getattr(detail.term, f) for f in fields] == [getattr(orm_term, f) for f in fields]
        links = [astuple(x) for x in [*detail.categories, *detail.related, *detail.articles]]
        assert sorted(links, key=lambda r: (r[0], r[1])) == orm_links


def test_prepared_term_detail_reads_the_clock_on_every_call(monkeypatch):
    """A scheduled term appears once its time comes, although the SQL was compiled before."""
    future = make_future_term("Jutro")
    assert selectors.term_detail(slug=future.slug) is None
    later = timezone.now() + timedelta(days=8)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert selectors.term_detail(slug=future.slug).term.pk == future.pk


def test_prepared_term_detail_never_shows_drafts():
    """Drafts stay hidden from the compiled path and visible to the staff (ORM) path only."""
    draft = make_draft_term("Szkic")
    assert selectors.term_detail(slug=draft.slug) is None
    assert selectors.term_detail(slug=draft.slug, include_drafts=True).term.pk == draft.pk


def test_prepared_term_detail_hides_unpublished_links():
    """Related draft terms never appear among a published term's links."""
    term = make_term("Protokół")
    term.related.add(make_draft_term("Ukryty"), make_term("Widoczny"))
    assert [link.title for link in selectors.term_detail(slug=term.slug).related] == ["Widoczny"]


def test_prepared_term_detail_runs_two_queries(django_assert_num_queries):
    """The compiled path still runs exactly one query for the row and one for the links."""
    term = make_term("Zapytanie")
    selectors.term_detail(slug=term.slug)
    with django_assert_num_queries(2):
        selectors.term_detail(slug=term.slug)


@pytest.mark.parametrize("prepared", ["_TERM_BY_SLUG", "_TERM_LINKS"])
def test_this_django_is_really_compiled_ahead(prepared):
    """The compiled path is the one taken, not the silent fallback: if a Django upgrade moves
    the compiler internals glossary/prepared.py reads (or turns a placeholder into something
    it cannot find), this fails instead of get_term quietly getting slower."""
    from django.db import DEFAULT_DB_ALIAS, connections

    make_term("Serwer")
    assert selectors.term_detail(slug="serwer") is not None
    compiled = getattr(selectors, prepared).compiled_for(connections[DEFAULT_DB_ALIAS])
    assert compiled is not None, f"selectors.{prepared} fell back to evaluating its QuerySet"
    _sql, roles, _convert = compiled
    assert "now" in {role for role, _value in roles}
