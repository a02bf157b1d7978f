"""A term write that deserves a second look is saved and says why, in `warnings`."""

import json

import pytest

from tests.factories import make_term

from .conftest import API

pytestmark = pytest.mark.django_db


def post(client, path, body, **headers):
    return client.post(f"{API}{path}", json.dumps(body), content_type="application/json",
                       **headers)  # fmt: skip


def test_a_name_equal_to_another_terms_synonym_is_saved_with_a_warning(client, editor_auth):
    """Creating a term named like another term's synonym (a second "SSE") answers 201 with a
    `warnings` list that names the other term; a write with nothing to warn about has no
    `warnings` member."""
    make_term("Server-Sent Events", slug="server-sent-events", synonyms=["SSE"])
    response = post(client, "/terms", {"title": "SSE", "slug": "sse-2"}, **editor_auth)
    assert response.status_code == 201, response.content
    [warning] = response.json()["warnings"]
    assert "„SSE” to już nazwa albo synonim pojęcia „Server-Sent Events”" in warning
    plain = post(client, "/terms", {"title": "NDJSON"}, **editor_auth)
    assert plain.status_code == 201 and "warnings" not in plain.json()
