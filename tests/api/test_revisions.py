"""An entry's revisions over REST, in WordPress's shape (`GET /<type>s/<id>/revisions`,
`/revisions/<rev_id>`: developer.wordpress.org/rest-api/reference/post-revisions/), read from
the django-reversion revisions every write path creates; editors only."""

import pytest
from django.test import Client
from reversion.models import Version

from glossary import services
from glossary.models import Status, Term

from .conftest import API

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(editor):
    """A term written three times by the editor, and an article written twice."""
    term = services.write_term(
        editor=editor,
        changes={"name": "Strumień", "short_definition": "Pierwsza definicja.", "body": "Raz."},
    )
    services.write_term(editor=editor, changes={"body": "Dwa **razy**."}, term=term)
    services.write_term(
        editor=editor, changes={"short_definition": "Trzecia definicja."}, term=term
    )
    article = services.write_article(
        editor=editor, changes={"title": "O strumieniach", "body": "Tekst.", "terms": [term.pk]}
    )
    services.write_article(editor=editor, changes={"body": "Tekst drugi."}, article=article)
    return {"term": term, "article": article}


def test_list_is_newest_first_in_wordpress_shape(client, history, editor, editor_auth):
    """Each revision has WordPress's fields (id, author, date, date_gmt, modified, parent,
    slug, title, content, excerpt, guid) with the texts as that revision stored them."""
    term = history["term"]
    response = client.get(f"{API}/terms/{term.pk}/revisions", {"context": "edit"}, **editor_auth)
    assert response.status_code == 200, response.content
    revisions = response.json()
    assert response["X-WP-Total"] == "3"
    assert [r["excerpt"]["raw"] for r in revisions] == [
        "Trzecia definicja.", "Pierwsza definicja.", "Pierwsza definicja."
    ]  # fmt: skip
    newest, middle, first = revisions
    assert newest["content"]["raw"] == "Dwa **razy**."
    assert "<strong>razy</strong>" in middle["content"]["rendered"]
    assert first["content"]["raw"] == "Raz."
    assert {r["parent"] for r in revisions} == {term.pk}
    assert {r["author"] for r in revisions} == {editor.pk}
    assert first["title"] == {"rendered": "Strumień", "raw": "Strumień"}
    assert first["slug"] == "strumien" and first["status"] == "draft"
    assert first["comment"].startswith("Dodano")
    wordpress = {"id", "author", "date", "date_gmt", "modified", "modified_gmt", "guid",
                 "parent", "slug", "title", "content", "excerpt", "_links"}  # fmt: skip
    assert set(newest) >= wordpress
    ids = [r["id"] for r in revisions]
    assert ids == sorted(ids, reverse=True)
    assert newest["_links"]["parent"][0]["href"].endswith(f"{API}/terms/{term.pk}")
    assert newest["guid"] == newest["_links"]["self"][0]["href"]
    assert newest["guid"].endswith(f"{API}/terms/{term.pk}/revisions/{newest['id']}")


def test_term_revisions_carry_the_english_fields_and_asked_as(client, history, editor, editor_auth):
    """A term's revisions keep its English name and definition and its asked-as phrases
    under `fields` (revisions are for editors only), as each revision stored them."""
    term = history["term"]
    changes = {"english_name": "Stream", "asked_as": ["jak płynie"]}
    services.write_term(editor=editor, changes=changes, term=term)
    newest, previous, *_ = client.get(f"{API}/terms/{term.pk}/revisions", **editor_auth).json()
    assert newest["fields"]["english_name"] == "Stream"
    assert newest["fields"]["asked_as"] == ["jak płynie"]
    assert (previous["fields"]["english_name"], previous["fields"]["asked_as"]) == ("", [])
    assert "Nazwa angielska" in newest["comment"] and "Pytano też jako" in newest["comment"]


def test_raw_texts_only_in_edit_context(client, history, editor_auth):
    """As in WordPress, `raw` appears with context=edit only."""
    term = history["term"]
    revisions = client.get(f"{API}/terms/{term.pk}/revisions", **editor_auth).json()
    assert "raw" not in revisions[0]["content"] and revisions[0]["content"]["rendered"]


def test_one_revision_and_its_errors(client, history, editor_auth):
    """`/revisions/<rev_id>` is one revision of that entry; another entry's revision, an
    unknown one or an unknown entry is a 404 in WordPress's error shape."""
    term, article = history["term"], history["article"]
    listed = client.get(f"{API}/terms/{term.pk}/revisions", **editor_auth).json()
    one = client.get(f"{API}/terms/{term.pk}/revisions/{listed[-1]['id']}", **editor_auth)
    assert one.status_code == 200 and one.json() == listed[-1]
    other = Version.objects.get_for_object(article).first()
    wrong = client.get(f"{API}/terms/{term.pk}/revisions/{other.pk}", **editor_auth)
    assert wrong.status_code == 404 and wrong.json()["code"] == "rest_post_invalid_id"
    assert wrong.json()["data"]["status"] == 404
    missing = client.get(f"{API}/terms/{10**18}/revisions", **editor_auth)
    assert missing.status_code == 404 and missing.json()["code"] == "rest_post_invalid_parent"
    huge = client.get(f"{API}/terms/{term.pk}/revisions/{2**70}", **editor_auth)
    assert huge.status_code == 404


def test_article_revisions_carry_the_article_fields(client, history, editor, editor_auth):
    """An article's revisions: title, lead as excerpt, and its links under `fields`."""
    article, term = history["article"], history["term"]
    response = client.get(f"{API}/articles/{article.pk}/revisions", **editor_auth)
    assert response.status_code == 200
    newest, first = response.json()
    assert first["title"]["rendered"] == "O strumieniach"
    assert first["fields"]["terms"] == [term.pk] and first["fields"]["author"] == editor.pk
    assert "Tekst drugi." in newest["content"]["rendered"]


@pytest.mark.parametrize("who", ["anonymous", "reader"])
def test_only_editors_see_revisions(client, history, reader_auth, who):
    """Revisions hold unpublished texts: anonymous is 401, an account without the right to
    change the entry is 403, both in WordPress's error shape."""
    headers = reader_auth if who == "reader" else {}
    for path in (
        f"/terms/{history['term'].pk}/revisions",
        f"/articles/{history['article'].pk}/revisions",
        f"/terms/{history['term'].pk}/revisions/1",
    ):
        response = Client().get(f"{API}{path}", **headers)
        assert response.status_code == (403 if who == "reader" else 401)
        body = response.json()
        assert body["code"] == "rest_cannot_read" and body["data"]["status"] == response.status_code


def test_revisions_are_read_only(client, history, editor_auth):
    """Revisions cannot be written or deleted through the API (405, WordPress's shape)."""
    term = history["term"]
    version = Version.objects.get_for_object(term).first()
    for method in ("post", "put", "delete"):
        response = getattr(client, method)(
            f"{API}/terms/{term.pk}/revisions/{version.pk}", **editor_auth
        )
        assert response.status_code == 405 and response.json()["code"] == "rest_no_route"


def test_paging_order_and_fields(client, history, editor_auth):
    """Pages, `order=asc` and `_fields` work as on every collection."""
    term = history["term"]
    url = f"{API}/terms/{term.pk}/revisions"
    page = client.get(url, {"per_page": 2, "page": 2}, **editor_auth)
    assert page.status_code == 200 and len(page.json()) == 1
    assert page["X-WP-TotalPages"] == "2" and 'rel="prev"' in page["Link"]
    oldest = client.get(url, {"order": "asc", "_fields": "id,excerpt.rendered"}, **editor_auth)
    assert oldest.json()[0] == {
        "id": min(r["id"] for r in client.get(url, **editor_auth).json()),
        "excerpt": {"rendered": "<p>Pierwsza definicja.</p>\n"},
    }
    bad = client.get(url, {"per_page": 500}, **editor_auth)
    assert bad.status_code == 400 and bad.json()["code"] == "rest_invalid_param"


def test_entries_link_their_version_history(client, history, editor_auth):
    """Terms and articles name their revisions with `version-history`, which resolves."""
    term = history["term"]
    data = client.get(f"{API}/terms/{term.pk}", {"context": "edit"}, **editor_auth).json()
    link = data["_links"]["version-history"][0]["href"]
    assert link.endswith(f"{API}/terms/{term.pk}/revisions")
    path = link.split("://", 1)[1].split("/", 1)[1]
    assert client.get(f"/{path}", **editor_auth).status_code == 200


def test_restored_and_rest_written_revisions_appear(client, history, editor, editor_auth):
    """A restore is a revision itself, listed first with its comment."""
    term = history["term"]
    oldest = Version.objects.get_for_object(term).order_by("pk").first()
    services.restore_version(oldest, editor=editor)
    newest = client.get(f"{API}/terms/{term.pk}/revisions", **editor_auth).json()[0]
    assert newest["comment"].startswith("Przywrócono wersję")
    assert newest["excerpt"]["rendered"] == "<p>Pierwsza definicja.</p>\n"


def test_constant_query_counts(client, history, editor, editor_auth, django_assert_num_queries):
    """The revisions list costs the same queries for 3 revisions and for 30: the application
    password, the editor's permissions (2), the content state and the revision marker (the
    ETag), the entry, the page of versions, and the COUNT when the page is not the whole
    list. One revision: the same without the COUNT."""
    term = history["term"]
    url = f"{API}/terms/{term.pk}/revisions"
    client.get(url, **editor_auth)  # warm the content-type cache
    for extra in (0, 27):
        for i in range(extra):
            term.refresh_from_db()
            services.write_term(editor=editor, changes={"body": f"Wersja {i}."}, term=term)
        with django_assert_num_queries(8):
            assert client.get(url, {"per_page": 2}, **editor_auth).status_code == 200
        with django_assert_num_queries(7):
            assert client.get(url, {"per_page": 100}, **editor_auth).status_code == 200
    version = Version.objects.get_for_object(term).first()
    with django_assert_num_queries(7):
        assert client.get(f"{url}/{version.pk}", **editor_auth).status_code == 200


def test_draft_status_follows_the_revision(client, editor, editor_auth):
    """`status` is the entry's status in that revision (a published revision says publish)."""
    term = services.write_term(
        editor=editor,
        changes={"name": "Opublikowane", "short_definition": "Def.", "status": Status.PUBLISHED},
    )
    assert Term.objects.get(pk=term.pk).status == Status.PUBLISHED
    revisions = client.get(f"{API}/terms/{term.pk}/revisions", **editor_auth).json()
    assert revisions[0]["status"] == "publish"


def test_openapi_describes_the_revision_routes(client):
    """Both revision routes are in the OpenAPI document (and so in schemathesis's run),
    GET only, with their path parameters and the revision schema."""
    paths = client.get(f"{API}/openapi").json()["paths"]
    for kind in ("terms", "articles"):
        listing = paths[f"{API}/{kind}/{{id}}/revisions"]
        one = paths[f"{API}/{kind}/{{id}}/revisions/{{rev_id}}"]
        assert set(listing) == {"get"} and set(one) == {"get"}
        assert {p["name"] for p in one["get"]["parameters"]} >= {"id", "rev_id", "context"}
        assert {"401", "403", "404"} <= set(one["get"]["responses"])


def test_revisions_answer_304_to_their_etag_until_they_change(
    client, history, editor, editor_auth, django_assert_num_queries
):
    """The revisions list and a revision send an ETag; the same If-None-Match is answered 304
    after the authentication, the content state and the revision marker (no read of the
    versions), and stops matching once the entry is saved again (a new revision) or one of
    its revisions is deleted."""
    term = history["term"]
    url = f"{API}/terms/{term.pk}/revisions"
    first = client.get(url, **editor_auth)
    one = client.get(f"{url}/{first.json()[-1]['id']}", **editor_auth)
    assert first["ETag"] and one["ETag"] and first["ETag"] != one["ETag"]
    with django_assert_num_queries(5):
        again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **editor_auth)
    assert again.status_code == 304 and again.content == b""
    assert client.get(url, HTTP_IF_NONE_MATCH=one["ETag"], **editor_auth).status_code == 200
    Version.objects.get_for_object(term).last().delete()  # no glossary table changes
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"], **editor_auth).status_code == 200
    current = client.get(url, **editor_auth)["ETag"]
    term.refresh_from_db()
    services.write_term(editor=editor, changes={"body": "Cztery."}, term=term)
    assert client.get(url, HTTP_IF_NONE_MATCH=current, **editor_auth).status_code == 200
