"""Lost-update protection over REST: a write that sends `If-Match` with the ETag of the
entry's route (RFC 9110 §13.1.1) is refused with 412, in WordPress's error shape, when the
entry was saved by anyone since that representation was sent; nothing is changed then."""

import json

import pytest
from django.test import Client

from glossary import services
from glossary.models import Term
from tests.factories import make_term

from .conftest import API

pytestmark = pytest.mark.django_db


def write(method, path, body, auth, **headers):
    client = Client()
    data = json.dumps(body) if body is not None else ""
    return getattr(client, method)(
        f"{API}{path}", data, content_type="application/json", **auth, **headers
    )


@pytest.fixture
def term(editor):
    return services.write_term(
        editor=editor, changes={"name": "Sesja", "short_definition": "Pierwsza definicja."}
    )


def etag_of(term, auth, **params) -> str:
    response = Client().get(f"{API}/terms/{term.pk}", params, **auth)
    assert response.status_code == 200
    return response["ETag"]


@pytest.mark.parametrize("method", ["put", "patch", "post"])
def test_a_stale_tag_is_412_and_changes_nothing(term, editor, editor_auth, method):
    """Editor A read the term; B saved it; A's write with A's tag is 412, B's text stays."""
    tag = etag_of(term, editor_auth, context="edit")
    services.write_term(editor=editor, changes={"short_definition": "Zmiana B."}, term=term)
    response = write(
        method, f"/terms/{term.pk}", {"excerpt": "Zmiana A."}, editor_auth, HTTP_IF_MATCH=tag
    )
    assert response.status_code == 412, response.content
    body = response.json()
    assert body["code"] == "rest_precondition_failed" and body["data"]["status"] == 412
    assert body["message"] and body["data"]["modified_gmt"]
    assert Term.objects.get(pk=term.pk).short_definition == "Zmiana B."


def test_a_current_tag_writes_and_returns_the_next_tag(term, editor_auth):
    """The tag of the current entry lets the write through; the answer carries the new tag,
    which the next write may send without reading again; the old one is stale now."""
    tag = etag_of(term, editor_auth)
    first = write("put", f"/terms/{term.pk}", {"excerpt": "Druga."}, editor_auth, HTTP_IF_MATCH=tag)
    assert first.status_code == 200, first.content
    new_tag = first["ETag"]
    assert new_tag and new_tag != tag
    second = write(
        "patch", f"/terms/{term.pk}", {"excerpt": "Trzecia."}, editor_auth, HTTP_IF_MATCH=new_tag
    )
    assert second.status_code == 200
    stale = write("patch", f"/terms/{term.pk}", {"excerpt": "X."}, editor_auth, HTTP_IF_MATCH=tag)
    assert stale.status_code == 412
    assert Term.objects.get(pk=term.pk).short_definition == "Trzecia."


def test_edits_of_other_entries_do_not_make_the_tag_stale(term, editor, editor_auth):
    """Only a save of this entry makes its tag stale: another term's edit (which changes the
    content version and every list's ETag) does not, nor does relinking this term."""
    tag = etag_of(term, editor_auth)
    other = make_term("Inne pojęcie")
    services.write_term(editor=editor, changes={"body": "Tekst o sesja."}, term=other)
    response = write(
        "put", f"/terms/{term.pk}", {"excerpt": "Po cudzej zmianie."}, editor_auth,
        HTTP_IF_MATCH=tag,
    )  # fmt: skip
    assert response.status_code == 200, response.content


@pytest.mark.parametrize(
    "header, status",
    [
        ("*", 200),  # any current representation (RFC 9110 §13.1.1)
        ('"garbage"', 412),
        ("not even a tag", 412),
        ("", 412),
    ],
)
def test_if_match_forms(term, editor_auth, header, status):
    """`*` matches an existing entry; anything that is not the entry's tag does not."""
    response = write(
        "patch", f"/terms/{term.pk}", {"excerpt": "Nowa."}, editor_auth, HTTP_IF_MATCH=header
    )
    assert response.status_code == status, response.content


def test_weak_tags_never_match(term, editor_auth):
    """If-Match uses the strong comparison: the weak form of the current tag is 412."""
    tag = etag_of(term, editor_auth)
    response = write(
        "patch", f"/terms/{term.pk}", {"excerpt": "Nowa."}, editor_auth, HTTP_IF_MATCH=f"W/{tag}"
    )
    assert response.status_code == 412


def test_no_if_match_keeps_writing_as_wordpress_does(term, editor_auth):
    """Without the header a write is unconditional (WordPress clients do not send it)."""
    response = write("patch", f"/terms/{term.pk}", {"excerpt": "Bez warunku."}, editor_auth)
    assert response.status_code == 200


def test_delete_with_a_stale_tag_keeps_the_entry(term, editor, editor_auth):
    """DELETE with a stale tag is 412 and the entry stays; with the current one it goes."""
    tag = etag_of(term, editor_auth)
    services.write_term(editor=editor, changes={"body": "Ktoś dopisał."}, term=term)
    stale = write("delete", f"/terms/{term.pk}?force=true", None, editor_auth, HTTP_IF_MATCH=tag)
    assert stale.status_code == 412 and Term.objects.filter(pk=term.pk).exists()
    current = etag_of(term, editor_auth)
    gone = write("delete", f"/terms/{term.pk}?force=true", None, editor_auth, HTTP_IF_MATCH=current)
    assert gone.status_code == 200 and not Term.objects.filter(pk=term.pk).exists()


def test_articles_are_guarded_too(editor, editor_auth):
    """The same rule on articles."""
    article = services.write_article(editor=editor, changes={"title": "Tekst", "body": "Raz."})
    tag = Client().get(f"{API}/articles/{article.pk}", **editor_auth)["ETag"]
    services.write_article(editor=editor, changes={"body": "Dwa."}, article=article)
    response = write(
        "put", f"/articles/{article.pk}", {"content": "Trzy."}, editor_auth, HTTP_IF_MATCH=tag
    )
    assert response.status_code == 412
    article.refresh_from_db()
    assert article.body == "Dwa."


def test_entry_tags_still_answer_304_after_one_query(django_assert_num_queries):
    """The entry's token in its tag costs nothing on conditional GETs: 304 after the
    content-state query, as before."""
    client = Client()
    term = make_term("Publiczne")
    tag = etag_of(term, {})
    assert tag.count(".") == 1
    with django_assert_num_queries(1):
        again = client.get(f"{API}/terms/{term.pk}", HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 304 and again["ETag"] == tag


def test_a_weak_entry_tag_answers_304_too():
    """If-None-Match uses the weak comparison (RFC 9110 §13.1.2): an entry's tag sent back
    as W/"…" (as caches and proxies may) answers 304 like the strong one, on the entry's
    own route as on lists."""
    client = Client()
    term = make_term("Publiczne")
    tag = etag_of(term, {})
    again = client.get(f"{API}/terms/{term.pk}", HTTP_IF_NONE_MATCH=f"W/{tag}")
    assert again.status_code == 304 and again["ETag"] == tag
    listed = client.get(f"{API}/terms", {"slug": term.slug})
    again = client.get(
        f"{API}/terms", {"slug": term.slug}, HTTP_IF_NONE_MATCH=f"W/{listed['ETag']}"
    )
    assert again.status_code == 304


def test_if_match_is_in_the_openapi_document(client):
    """Writes document the If-Match header and the 412 answer."""
    paths = client.get(f"{API}/openapi").json()["paths"]
    for method in ("put", "patch", "post", "delete"):
        operation = paths[f"{API}/terms/{{id}}"][method]
        assert "If-Match" in {p["name"] for p in operation["parameters"]}, method
        assert "412" in operation["responses"], method


def test_a_malformed_body_is_400_before_the_precondition(term, editor_auth):
    """A body that could never be written is 400 even with a stale If-Match: the client
    must fix the request, not re-read the entry."""
    response = write(
        "put", f"/terms/{term.pk}", {"excerpt": 5}, editor_auth, HTTP_IF_MATCH='"stale.tag"'
    )
    assert response.status_code == 400 and response.json()["code"] == "rest_invalid_param"
