"""The read path of a REST list: `queries.plan` picks a strategy from the parameters alone
(api/queries.py), and a view's read writes nothing onto the view."""

import pytest
from django.db import connection
from django.utils import timezone

from api import queries
from api.listing import Listing
from api.views import CategoryViewSet, TermViewSet
from glossary.models import Term
from tests.factories import make_term

from .conftest import API

LIST = {"orderby": "title", "order": "asc", "page": 1, "per_page": 10, "context": "view"}
SEARCH = {**LIST, "orderby": "relevance", "search": "sse"}


def _listing(params: dict, resource=TermViewSet.resource, drafts=frozenset()) -> Listing:
    return Listing(resource, params, timezone.now(), drafts=drafts)


@pytest.mark.parametrize(
    "params, drafts, expected",
    [
        (LIST, frozenset(), "WALKED"),
        ({**LIST, "slug": ["sse"]}, frozenset(), "COMPILED"),
        ({**SEARCH, "exclude": [9]}, frozenset(), "COMPILED"),
        ({**SEARCH, "_fields": ["id"]}, frozenset(), "RANKED"),
        (LIST, frozenset({Term}), "ORM"),
        (SEARCH, frozenset({Term}), "ORM"),
    ],
)
def test_the_plan_follows_the_parameters_alone(db, django_assert_num_queries, params, drafts,
                                               expected):  # fmt: skip
    """A list is planned from its parameters and its reader, reading nothing: editors' lists
    by the ORM, unfiltered readers' lists by their ids, filtered ones by compiled SQL, a
    search by relevance by the engine's ranking."""
    with django_assert_num_queries(0):
        assert queries.plan(_listing(params, drafts=drafts)) is getattr(queries, expected)


def test_a_search_by_relevance_is_one_statement_on_postgresql(db):
    """In `context=view` a search by relevance is read with its page in one statement where
    the database writes whole pages (PostgreSQL); elsewhere it is the engine's ranking."""
    expected = queries.SEARCH_PAGE if connection.vendor == "postgresql" else queries.RANKED
    assert queries.plan(_listing(SEARCH)) is expected


def test_taxonomies_are_never_walked_by_a_search(db):
    """A taxonomy has no search: its lists are walked or compiled like any other."""
    assert queries.plan(_listing(LIST, CategoryViewSet.resource)) is queries.WALKED


@pytest.mark.parametrize("path", ["/terms", "/terms?per_page=1&page=2", "/terms?search=sse"])
def test_a_read_writes_nothing_onto_the_view(client, db, monkeypatch, path):
    """A list keeps what it read in its `Page`, never on the view: after DRF's own setup
    (`initial`: the parameters and the clock) no attribute of the view changes but DRF's
    own (its paginator, the response `dispatch` keeps)."""
    make_term("SSE")
    make_term("HTTP")
    seen = {}
    original = TermViewSet.initial

    def initial(self, request, *args, **kwargs):
        original(self, request, *args, **kwargs)
        seen["before"] = dict(vars(self))
        seen["view"] = self

    monkeypatch.setattr(TermViewSet, "initial", initial)
    assert client.get(API + path).status_code == 200
    after = vars(seen["view"])
    changed = {k for k in after if k not in seen["before"] or after[k] is not seen["before"][k]}
    assert changed <= {"_paginator", "headers", "response"}, changed
