"""Writing the glossary through the REST API: application passwords over Basic auth, model
permissions, and the admin's validation rules through glossary.services."""

import json
from unittest import mock

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client

from api.models import ApplicationPassword, digest
from glossary import events, selectors
from glossary.models import Article, Status, Term
from tests.factories import make_category, make_draft_term, make_term

from .conftest import API, basic

pytestmark = pytest.mark.django_db


def send(client, method, path, body, **headers):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return getattr(client, method)(f"{API}{path}", data, content_type="application/json", **headers)


# --- application passwords -----------------------------------------------------------------
def test_application_passwords_are_stored_hashed_and_used_once_shown(editor, settings):
    """Only a keyed hash is stored; the plain text works as the Basic-auth password (spaces
    allowed, as WordPress shows it in groups of four), the account password does not."""
    settings.DEBUG = True
    row, password = ApplicationPassword.objects.issue(user=editor, name="cli")
    assert password not in row.digest and row.digest == digest(password) and len(password) == 24
    client = Client()
    spaced = " ".join(password[i : i + 4] for i in range(0, 24, 4))
    assert (
        client.get(f"{API}/terms", {"context": "edit"}, **basic("redaktor", spaced)).status_code
        == 200
    )
    wrong = client.get(f"{API}/terms", **basic("redaktor", "x-unused-account-password"))
    assert wrong.status_code == 401 and wrong.json()["code"] == "rest_invalid_application_password"
    assert wrong["WWW-Authenticate"].startswith("Basic")


def test_use_is_recorded_and_revoking_ends_it(editor_auth, editor):
    """A successful call stamps last_used and last_ip; a deleted password stops working."""
    client = Client()
    assert client.get(f"{API}/terms", **editor_auth).status_code == 200
    row = ApplicationPassword.objects.get(user=editor)
    assert row.last_used is not None and row.last_ip == "127.0.0.1"
    row.delete()
    assert client.get(f"{API}/terms", **editor_auth).status_code == 401


def test_plain_http_is_refused_without_debug(editor, settings):
    """With DEBUG off, Basic auth needs HTTPS (or a TLS proxy named by
    SECURE_PROXY_SSL_HEADER), as WordPress requires SSL for application passwords."""
    _row, password = ApplicationPassword.objects.issue(user=editor, name="cli")
    settings.DEBUG = False
    client = Client()
    plain = client.get(f"{API}/terms", **basic("redaktor", password))
    assert plain.status_code == 401
    assert plain.json()["code"] == "rest_application_passwords_https_required"
    assert client.get(f"{API}/terms", secure=True, **basic("redaktor", password)).status_code == 200
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    proxied = client.get(
        f"{API}/terms", HTTP_X_FORWARDED_PROTO="https", **basic("redaktor", password)
    )
    assert proxied.status_code == 200


def test_brute_force_is_throttled_with_retry_after(editor, settings):
    """After 10 failed attempts a minute from one address every Basic-auth attempt is 429
    with Retry-After, the right password too."""
    settings.DEBUG = True
    _row, password = ApplicationPassword.objects.issue(user=editor, name="cli")
    client = Client()
    for _ in range(10):
        assert client.get(f"{API}/terms", **basic("redaktor", "guess")).status_code == 401
    blocked = client.get(f"{API}/terms", **basic("redaktor", password))
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) >= 1
    assert blocked.json()["code"] == "rest_too_many_requests"
    assert client.get(f"{API}/terms").status_code == 200  # reads without credentials still work


@pytest.mark.parametrize(
    "header",
    ["Basic", "Basic !!!", "Basic " + "QQ==", "Basic dXNlcgBuYW1lOnBhc3M=", "Bearer x"],
)
def test_malformed_credentials_are_4xx(db, settings, header):
    """Broken Authorization headers (no colon, bad base64, NUL bytes) are 401, never 500;
    other schemes are ignored."""
    settings.DEBUG = True
    response = Client().get(f"{API}/terms", HTTP_AUTHORIZATION=header)
    assert response.status_code in (200, 401)
    assert response.json() if response.status_code == 401 else True


def test_the_admin_shows_a_new_password_once_and_only_ones_own(editor, reader):
    """An editor creates a password in the admin by name; the page shows it once (not in a
    cookie), and the list shows only the editor's own passwords."""
    ApplicationPassword.objects.issue(user=reader, name="cudze")
    client = Client()
    client.force_login(editor)
    response = client.post("/admin/api/applicationpassword/add/", {"name": "Zapier"})
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    row = ApplicationPassword.objects.get(user=editor, name="Zapier")
    shown = response.content.decode().split('id="application-password"')[1].split("</code>")[0]
    plain = "".join(shown.split(">", 1)[1].split())
    assert digest(plain) == row.digest
    assert plain not in str(response.cookies)
    listing = client.get("/admin/api/applicationpassword/").content.decode()
    assert "Zapier" in listing and "cudze" not in listing
    duplicate = client.post("/admin/api/applicationpassword/add/", {"name": "zapier"})
    assert "Masz już hasło aplikacji o tej nazwie" in duplicate.content.decode()


def test_management_command_prints_a_password(editor, settings, capsys):
    """`create_application_password` issues one for scripts and prints it once."""
    call_command("create_application_password", "redaktor", "deploy")
    printed = capsys.readouterr().out.strip()
    assert digest("".join(printed.split())) == ApplicationPassword.objects.get(name="deploy").digest


# --- permissions -------------------------------------------------------------------------------
def test_anonymous_and_readers_cannot_write(client, reader_auth):
    """Writes without credentials are 401 rest_cannot_create; an account without the Editors
    group's permissions is 403 in the same shape."""
    anonymous = send(client, "post", "/terms", {"title": "Nowe"})
    assert anonymous.status_code == 401 and anonymous.json()["code"] == "rest_cannot_create"
    forbidden = send(client, "post", "/terms", {"title": "Nowe"}, **reader_auth)
    assert forbidden.status_code == 403 and forbidden.json()["code"] == "rest_cannot_create"
    term = make_term("Stare")
    edit = send(client, "patch", f"/terms/{term.pk}", {"title": "x"}, **reader_auth)
    assert edit.status_code == 403 and edit.json()["code"] == "rest_cannot_edit"
    delete = client.delete(f"{API}/terms/{term.pk}?force=true", **reader_auth)
    assert delete.json()["code"] == "rest_cannot_delete"
    assert Term.objects.get(pk=term.pk).name == "Stare"


# --- writes --------------------------------------------------------------------------------------
def test_an_editor_creates_a_draft_then_publishes_it(
    client, editor_auth, editor, django_capture_on_commit_callbacks
):
    """POST creates a draft (201, Location, context=edit answer) stamped with its editor; a
    POST to its route with status=publish publishes it: pages and MCP see it, the content
    version moves, and the same change event as an admin save goes out."""
    category = make_category("Transport")
    state = selectors.content_state()
    with (
        mock.patch.object(events, "publish") as published,
        django_capture_on_commit_callbacks(execute=True),
    ):
        created = send(client, "post", "/terms", {
            "title": "Server-Sent Events", "content": "## Format\n\n`text/event-stream`",
            "synonyms": ["SSE"], "categories": [category.pk],
        }, **editor_auth)  # fmt: skip
    assert created.status_code == 201, created.content
    data = created.json()
    assert data["status"] == "draft" and data["slug"] == "server-sent-events"
    assert created["Location"].endswith(f"/terms/{data['id']}")
    assert (
        data["content"]["raw"].startswith("## Format")
        and "<h3>Format</h3>" in data["content"]["rendered"]
    )
    term = Term.objects.get(pk=data["id"])
    assert term.last_editor == editor and term.status == Status.DRAFT
    assert not published.call_args_list or not published.call_args_list[0].args[0]  # drafts: silent
    assert client.get(f"/slownik/{term.slug}/").status_code == 404
    assert selectors.content_state() != state

    with (
        mock.patch.object(events, "publish") as published,
        django_capture_on_commit_callbacks(execute=True),
    ):
        done = send(client, "post", f"/terms/{term.pk}",
                    {"status": "publish", "excerpt": "Strumień zdarzeń z serwera."},
                    **editor_auth)  # fmt: skip
    assert done.status_code == 200, done.content
    assert done.json()["status"] == "publish"
    (changes,) = [call.args[0] for call in published.call_args_list if call.args[0]]
    assert [(c.kind, c.slug, c.change) for c in changes] == [("term", term.slug, "published")]
    assert client.get(f"/slownik/{term.slug}/").status_code == 200
    assert client.get(f"{API}/terms/{term.pk}").status_code == 200


def test_publishing_needs_a_short_definition_and_changes_nothing_when_refused(client, editor_auth):
    """The admin's rule: a published term needs its short definition. A refused write names
    the field and why (code), and leaves the database as it was."""
    term = make_draft_term("Szkic", short_definition="")
    before = Term.objects.filter(pk=term.pk).values().get()
    response = send(client, "patch", f"/terms/{term.pk}", {"status": "publish", "content": "nowa"},
                    **editor_auth)  # fmt: skip
    body = response.json()
    assert response.status_code == 400 and body["code"] == "rest_invalid_param"
    assert body["data"]["details"]["excerpt"]["code"] == "definition_required"
    assert Term.objects.filter(pk=term.pk).values().get() == before


@pytest.mark.parametrize(
    "body, field, code",
    [
        ({"title": "mcp"}, "title", "duplicate_name"),  # case-insensitive, like the admin
        ({"title": "Inne", "slug": "mcp"}, "slug", "unique"),
        ({"title": "Inne", "slug": "Zły Slug"}, "slug", "invalid"),
        ({"title": ""}, "title", "blank"),
        ({}, "title", "required"),
        ({"title": 5}, "title", "invalid"),
        ({"title": "x" * 201}, "title", "max_length"),
        ({"title": "Inne", "excerpt": "x" * 301}, "excerpt", "max_length"),
        ({"title": "Inne", "categories": [987654]}, "categories", "invalid_choice"),
        ({"title": "Inne", "categories": "1"}, "categories", "not_a_list"),
        ({"title": "Inne", "related": ["a"]}, "related", "invalid"),
        ({"title": "Inne", "status": "pending"}, "status", "invalid_choice"),
        ({"title": "Inne", "status": "future"}, "date", "invalid"),
        ({"title": "Inne", "date": "wczoraj"}, "date", "invalid"),
        ({"title": "Inne", "definicja": "literówka"}, "definicja", "invalid"),
        ({"title": "Inne\x00"}, "title", "null_characters_not_allowed"),
        ({"title": "Inne", "english_name": "x" * 201}, "english_name", "max_length"),
        ({"title": "Inne", "english_definition": "x" * 301}, "english_definition", "max_length"),
        (
            {"title": "Inne", "english_name": "a\x00b"},
            "english_name",
            "null_characters_not_allowed",
        ),
        (
            {"title": "Inne", "english_definition": "a\x01b"},
            "english_definition",
            "control_characters",
        ),
        ({"title": "Inne", "english_name": ["Tool"]}, "english_name", "invalid"),
        ({"title": "Inne", "asked_as": "jedno"}, "asked_as", "not_a_list"),
        ({"title": "Inne", "asked_as": ["a\x01b"]}, "asked_as", "control_characters"),
    ],
)
def test_invalid_terms_are_refused_field_by_field(client, editor_auth, body, field, code):
    """Each bad field is named with a code and a message; nothing is written."""
    make_term("MCP")
    count = Term.objects.count()
    response = send(client, "post", "/terms", body, **editor_auth)
    data = response.json()
    assert response.status_code == 400, data
    assert field in data["data"]["params"], data
    assert data["data"]["details"][field]["code"] == code, data
    assert Term.objects.count() == count


def test_english_fields_and_asked_as_are_written_and_kept_by_a_patch(client, editor_auth):
    """An editor writes the English name and definition and the asked-as phrases, cleaned as
    the admin cleans them; a PATCH that does not send them keeps them."""
    response = send(client, "post", "/terms", {
        "title": "Wywołanie narzędzia", "english_name": " Tool  call ",
        "english_definition": "A request\nto run a tool.",
        "asked_as": ["jak model odpala funkcję", "JAK MODEL ODPALA FUNKCJĘ", " "],
    }, **editor_auth)  # fmt: skip
    assert response.status_code == 201, response.content
    data = response.json()
    assert data["english_name"] == "Tool call" and data["asked_as"] == ["jak model odpala funkcję"]
    term = Term.objects.get(pk=data["id"])
    assert term.english_definition == "A request to run a tool."
    patched = send(client, "patch", f"/terms/{term.pk}", {"excerpt": "Inna."}, **editor_auth)
    assert patched.status_code == 200
    term.refresh_from_db()
    assert (term.english_name, term.asked_as) == ("Tool call", ["jak model odpala funkcję"])
    send(client, "patch", f"/terms/{term.pk}", {"asked_as": []}, **editor_auth)
    term.refresh_from_db()
    assert term.asked_as == [] and term.english_name == "Tool call"


def test_a_term_cannot_be_related_to_itself(client, editor_auth):
    """The admin form's rule, through the API."""
    term = make_term("Samo")
    response = send(client, "patch", f"/terms/{term.pk}", {"related": [term.pk]}, **editor_auth)
    assert response.json()["data"]["details"]["related"]["code"] == "self_related"


@pytest.mark.parametrize(
    "raw, code",
    [(b"{not json", "rest_invalid_json"), (b"[1, 2]", "rest_invalid_param"),
     (b'"text"', "rest_invalid_param"), (b"", "rest_invalid_param")],
)  # fmt: skip
def test_malformed_bodies(client, editor_auth, raw, code):
    """Malformed JSON and non-object bodies are 400 in WordPress's shape."""
    response = send(client, "post", "/terms", raw, **editor_auth)
    assert response.status_code == 400 and response.json()["code"] == code


def test_wrong_content_type_and_oversize_body(client, editor_auth, settings):
    """A form-encoded body is 415; a body over DATA_UPLOAD_MAX_MEMORY_SIZE is 413."""
    form = client.post(f"{API}/terms", "title=x", content_type="application/x-www-form-urlencoded",
                       **editor_auth)  # fmt: skip
    assert form.status_code == 415 and form.json()["code"] == "rest_unsupported_media_type"
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    big = send(client, "post", "/terms", {"title": "x", "content": "y" * 5000}, **editor_auth)
    assert big.status_code == 413 and big.json()["code"] == "rest_request_too_large"


def test_an_edit_context_object_can_be_sent_back_as_it_is(client, editor_auth):
    """Read-only fields of the edit form (id, link, dates, _links…) are ignored on write, so a
    GET with context=edit round-trips through PUT; raw texts are taken from `raw`."""
    term = make_term("Obieg", body="tekst")
    current = client.get(f"{API}/terms/{term.pk}", {"context": "edit"}, **editor_auth).json()
    current["excerpt"]["raw"] = "Nowa definicja."
    current.pop("status")
    response = send(client, "put", f"/terms/{term.pk}", current, **editor_auth)
    assert response.status_code == 200, response.content
    term.refresh_from_db()
    assert term.short_definition == "Nowa definicja." and term.body == "tekst"


def test_partial_updates_keep_links_editors_cannot_see_in_view(client, editor_auth):
    """PATCH changes only what it sends: related drafts stay related."""
    draft = make_draft_term("Szkic")
    term = make_term("Z linkami")
    term.related.set([draft])
    assert (
        send(client, "patch", f"/terms/{term.pk}", {"excerpt": "Inna."}, **editor_auth).status_code
        == 200
    )
    assert list(term.related.all()) == [draft]


def test_scheduling_with_a_future_date(client, editor_auth):
    """status=publish (or future) with a date in the future schedules the term: readers do
    not see it yet."""
    response = send(client, "post", "/terms", {
        "title": "Jutro", "excerpt": "Jutrzejsze.", "status": "future",
        "date_gmt": "2099-01-01T10:00:00",
    }, **editor_auth)  # fmt: skip
    assert response.status_code == 201, response.content
    assert (
        response.json()["status"] == "future"
        and response.json()["date_gmt"] == "2099-01-01T10:00:00"
    )
    assert client.get(f"{API}/terms/{response.json()['id']}").status_code == 404


def test_delete_needs_force_and_returns_the_previous_object(
    client, editor_auth, django_capture_on_commit_callbacks
):
    """Entries have no trash: DELETE without force=true is 400 rest_trash_not_supported;
    with it the entry is gone and the answer holds what it was."""
    with django_capture_on_commit_callbacks(execute=True):
        term = make_term("Do usunięcia")
    refused = client.delete(f"{API}/terms/{term.pk}", **editor_auth)
    assert refused.status_code == 400 and refused.json()["code"] == "rest_trash_not_supported"
    with (
        mock.patch.object(events, "publish") as published,
        django_capture_on_commit_callbacks(execute=True),
    ):
        done = client.delete(f"{API}/terms/{term.pk}?force=true", **editor_auth)
    assert done.status_code == 200 and done.json()["deleted"] is True
    assert done.json()["previous"]["title"]["raw"] == "Do usunięcia"
    assert not Term.objects.filter(pk=term.pk).exists()
    changes = [c for call in published.call_args_list for c in call.args[0]]
    assert [(c.slug, c.change) for c in changes] == [(term.slug, "deleted")]


def test_articles_are_written_the_same_way(client, editor_auth, editor):
    """Articles: create with terms and a series position; the author defaults to the editor;
    the series rule (a position needed) is the model's."""
    from glossary.models import Series

    term = make_term("Pojęcie")
    series = Series.objects.create(name="Seria", slug="seria")
    missing = send(client, "post", "/articles", {"title": "A", "series": series.pk}, **editor_auth)
    assert missing.json()["data"]["details"]["series_order"]["code"] == "series_order_required"
    created = send(client, "post", "/articles", {
        "title": "Artykuł", "excerpt": "Lead.", "terms": [term.pk], "series": series.pk,
        "series_order": 1, "status": "publish",
    }, **editor_auth)  # fmt: skip
    assert created.status_code == 201, created.content
    article = Article.objects.get(pk=created.json()["id"])
    assert article.author == editor and article.last_editor == editor and article.is_public
    assert list(article.terms.all()) == [term]


def test_session_auth_needs_the_csrf_token(editor):
    """The admin's own JavaScript may use its session; without the CSRF token a write is
    refused, with it accepted."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    refused = send(client, "post", "/terms", {"title": "Z sesji"})
    assert refused.status_code == 403
    client.get("/admin/")
    token = client.cookies["csrftoken"].value
    accepted = send(client, "post", "/terms", {"title": "Z sesji"}, HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 201, accepted.content


def test_writes_are_throttled_per_user(client, editor_auth, settings):
    """Unsafe methods are limited per user (`writes` rate); the answer is 429 + Retry-After."""
    from rest_framework.settings import api_settings

    rates = {**api_settings.DEFAULT_THROTTLE_RATES, "writes": "2/min"}
    with mock.patch("api.throttling.WriteRateThrottle.THROTTLE_RATES", rates):
        codes = [send(client, "post", "/terms", {"title": f"T{i}"}, **editor_auth).status_code
                 for i in range(3)]  # fmt: skip
    assert codes[:2] == [201, 201] and codes[2] == 429


def test_users_stay_out_of_the_api(db):
    """There is no users route: accounts are not exposed."""
    User.objects.create_user("ktos")
    assert Client().get(f"{API}/users").json()["code"] == "rest_no_route"


def test_rest_writes_are_revisions_and_keep_auto_links_right(client, editor_auth, editor):
    """A REST create and a REST update are each a revision (who, a comment naming the REST API
    and the changed fields) through the same services as the admin, and an article written
    through the API links the glossary's published terms like an admin save."""
    import reversion

    make_term("Agent", slug="agent", short_definition="Program działający w imieniu modelu.")
    created = send(client, "post", "/articles", {
        "title": "Agenci w praktyce", "content": "Agent łączy się z serwerem.", "status": "publish",
    }, **editor_auth)  # fmt: skip
    assert created.status_code == 201, created.content
    article = Article.objects.get(pk=created.json()["id"])
    assert 'href="/slownik/agent/"' in article.linked_html
    updated = send(client, "post", f"/articles/{article.pk}", {"excerpt": "Nowy lead."},
                   **editor_auth)  # fmt: skip
    assert updated.status_code == 200, updated.content
    versions = reversion.models.Version.objects.get_for_object(article)
    assert [v.revision.comment for v in versions] == [
        "Zmieniono (REST API): Lead.",
        "Dodano (REST API).",
    ]
    assert {v.revision.user for v in versions} == {editor}
