"""What a write answers besides the object: `warnings` for a term worth a second look, and
errors that say the limit or rule they enforce."""

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


def test_a_too_large_body_is_413_saying_the_limit(client, editor_auth, settings):
    """A body over the upload limit is 413 `rest_request_too_large`, and the message says the
    limit in bytes."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = post(client, "/terms", {"title": "x" * 2000}, **editor_auth)
    assert response.status_code == 413
    body = response.json()
    assert body["code"] == "rest_request_too_large"
    assert "najwyżej 1\u00a0000 bajtów" in body["message"]


@pytest.mark.parametrize("slug", ["zła", "a b", "A_B"])
def test_a_bad_slug_says_which_characters_are_allowed(client, editor_auth, slug):
    """A slug with other characters is refused with the rule: lower-case a–z, digits and
    hyphens (never Django's "letters, numbers, underscores")."""
    response = post(client, "/terms", {"title": "Test", "slug": slug}, **editor_auth)
    assert response.status_code == 400
    text = json.dumps(response.json(), ensure_ascii=False)
    assert "tylko małe litery a–z, cyfry i myślniki" in text
    assert "podkreślenia" not in text
