"""The reader page cache (glossary/views.py `_reader_page`, behind `term_view` and
`article_view`): readers get a page rendered once per content state, conditional GETs are
answered 304 without rendering, and every kind of change (ORM, raw SQL, a scheduled
publication passing) reaches the next request."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.utils import timezone

from glossary.models import Status
from tests.factories import make_article, make_draft_term, make_future_term, make_term


@pytest.fixture
def term(db):
    term = make_term("Bufor", short_definition="Miejsce na dane w drodze.")
    term.related.add(make_term("Kolejka", short_definition="Pierwszy przyszedł."))
    return term


def test_a_cached_page_costs_one_query_and_no_rendering(client, term, django_assert_num_queries):
    """The second request for an unchanged page reads the content state and nothing else."""
    first = client.get(term.get_absolute_url())
    with django_assert_num_queries(1):
        again = client.get(term.get_absolute_url())
    assert again.templates == []
    assert again.content == first.content and again["ETag"] == first["ETag"]


def test_a_conditional_get_is_a_304_without_rendering(client, term, django_assert_num_queries):
    """If-None-Match with the page's ETag: 304, one query, no template rendered."""
    etag = client.get(term.get_absolute_url())["ETag"]
    with django_assert_num_queries(1):
        response = client.get(term.get_absolute_url(), headers={"if-none-match": etag})
    assert response.status_code == 304 and response.templates == []


def test_a_raw_sql_edit_of_a_linked_term_changes_the_page(client, term):
    """A related term renamed by raw SQL (no Python sees it) shows on the next request."""
    etag = client.get(term.get_absolute_url())["ETag"]
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE glossary_term SET name = %s WHERE slug = %s", ["Kolejka FIFO", "kolejka"]
        )
    response = client.get(term.get_absolute_url(), headers={"if-none-match": etag})
    assert response.status_code == 200 and "Kolejka FIFO" in response.content.decode()


def test_a_scheduled_publication_changes_the_page(client, term, monkeypatch):
    """A related term scheduled for later appears on the page once its time has come."""
    term.related.add(make_future_term("Stos", short_definition="Ostatni przyszedł."))
    assert "Stos" not in client.get(term.get_absolute_url()).content.decode()
    later = timezone.now() + timedelta(days=8)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert "Stos" in client.get(term.get_absolute_url()).content.decode()


def test_staff_views_are_never_cached(staff_client, db):
    """A draft a staff member previewed is not served to readers from the cache."""
    draft = make_draft_term("Szkic", short_definition="Jeszcze nie.")
    assert staff_client.get(draft.get_absolute_url()).status_code == 200
    assert Client().get(draft.get_absolute_url()).status_code == 404


@pytest.fixture
def article(term):
    return make_article("O buforach", lead="Po co jest bufor.", terms=[term])


def test_a_cached_article_costs_one_query_and_no_rendering(
    client, article, django_assert_num_queries
):
    """The second request for an unchanged article page reads the content state only."""
    first = client.get(article.get_absolute_url())
    with django_assert_num_queries(1):
        again = client.get(article.get_absolute_url())
    assert again.templates == []
    assert again.content == first.content and again["ETag"] == first["ETag"]


def test_an_article_conditional_get_is_a_304_without_rendering(
    client, article, django_assert_num_queries
):
    """If-None-Match with the article page's ETag: 304, one query, no template rendered (it
    used to render the whole page to compare the ETag)."""
    etag = client.get(article.get_absolute_url())["ETag"]
    with django_assert_num_queries(1):
        response = client.get(article.get_absolute_url(), headers={"if-none-match": etag})
    assert response.status_code == 304 and response.templates == []


def test_an_edit_of_a_term_the_article_uses_changes_its_page(client, article, term):
    """The article lists its terms: renaming one (raw SQL, no Python sees it) shows at once."""
    etag = client.get(article.get_absolute_url())["ETag"]
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE glossary_term SET name = %s WHERE id = %s", ["Bufor cykliczny", term.id]
        )
    response = client.get(article.get_absolute_url(), headers={"if-none-match": etag})
    assert response.status_code == 200 and "Bufor cykliczny" in response.content.decode()


def test_a_draft_article_a_staff_member_saw_is_not_served_to_readers(staff_client, db):
    """Staff see drafts, fresh each time; readers get a 404, never the staff's render."""
    draft = make_article("Szkic artykułu", status=Status.DRAFT)
    assert staff_client.get(draft.get_absolute_url()).status_code == 200
    assert Client().get(draft.get_absolute_url()).status_code == 404
