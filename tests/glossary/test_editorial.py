"""Editors' tools: the live preview, revisions (every write path, diff, restore), Polish admin
messages with plural forms, compiled translations, and scheduled publication events."""

# ruff: noqa: E501 (case tables keep one case per line)

import importlib
import json
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.apps import apps as global_apps
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from reversion.models import Version

from glossary import importing, services
from glossary.admin.messages import count_message
from glossary.importexport import parse_json
from glossary.models import Article, Category, Series, Status, Term
from tests.factories import make_term

pytestmark = pytest.mark.django_db
LOCALE = Path(__file__).resolve().parents[2] / "glossary" / "locale" / "pl" / "LC_MESSAGES"
editors_migration = importlib.import_module("glossary.migrations.0002_editors_group")


@pytest.fixture
def editor():
    editors_migration.create_editors_group(global_apps, SimpleNamespace(connection=connection))
    user = User.objects.create_user("redaktorka", "r@example.com", "x", is_staff=True,
                                    first_name="Ewa", last_name="Nowak")  # fmt: skip
    user.groups.add(Group.objects.get(name="Editors"))
    return user


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


def url(model, view, *args):
    return reverse(f"admin:glossary_{model._meta.model_name}_{view}", args=args)


def term_form(**values):
    data = {"name": "", "slug": "", "short_definition": "", "body": "", "synonyms": "",
            "status": Status.DRAFT, "published_at_0": "", "published_at_1": "", "autolink": "on",
            "linkable": "on", "_save": "Zapisz"}  # fmt: skip
    return {**data, **values}


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


# --- live preview ------------------------------------------------------------------------------


def test_preview_renders_with_the_sites_renderer_and_links(editor_client):
    """POSTed Markdown comes back as the page will show it: headings, sanitized HTML and
    auto-links to published terms."""
    make_term("MCP", slug="mcp", short_definition="Protokół.")
    response = editor_client.post(
        url(Term, "preview"), {"body": "# Tytuł\n\nO protokole MCP.<script>x</script>"}
    )
    assert response.status_code == 200
    html = response.json()["html"]
    assert "<h2>Tytuł</h2>" in html and "<script" not in html
    assert 'data-term="mcp" title="Protokół."' in html


def test_preview_can_leave_links_out_and_never_links_the_term_to_itself(editor_client):
    """autolink=0 previews without links; a term's own id is excluded."""
    mcp = make_term("MCP", slug="mcp")
    answer = editor_client.post(url(Term, "preview"), {"body": "MCP", "autolink": "0"}).json()
    assert "term-link" not in answer["html"]
    answer = editor_client.post(url(Term, "preview"), {"body": "MCP", "id": str(mcp.pk)}).json()
    assert "term-link" not in answer["html"]


@pytest.mark.parametrize(
    ("client_kind", "status"), [("anonymous", 302), ("reader", 302)], ids=["anonymous", "not staff"]
)
def test_preview_is_for_staff_only(client, client_kind, status):
    """Only staff reach the preview (the admin's login redirect for everyone else)."""
    if client_kind == "reader":
        client.force_login(User.objects.create_user("czytelnik", password="x"))
    assert client.post(url(Article, "preview"), {"body": "x"}).status_code == status


def test_preview_needs_the_csrf_token(editor):
    """A cross-site POST without the CSRF token is refused (403)."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    assert client.post(url(Article, "preview"), {"body": "x"}).status_code == 403


def test_preview_refuses_oversize_and_nul_input_with_a_clear_error(editor_client):
    """Bad input is a 400 with a Polish message, never a 500; GET is 405."""
    big = editor_client.post(url(Article, "preview"), {"body": "a" * 200_001})
    assert big.status_code == 400 and "znaków" in big.json()["error"]
    assert editor_client.post(url(Article, "preview"), {"body": "a\x00b"}).status_code == 400
    assert editor_client.get(url(Article, "preview")).status_code == 405


def test_change_form_carries_the_preview_address(editor_client):
    """The body textarea names its preview endpoint; the admin loads the preview script."""
    term = make_term("Sesja")
    text = editor_client.get(url(Term, "change", term.pk)).content.decode()
    assert f'data-preview-url="{url(Term, "preview")}"' in text
    assert f'data-preview-id="{term.pk}"' in text and "js/admin-preview.js" in text


# --- revisions ---------------------------------------------------------------------------------


def versions(entry):
    return list(Version.objects.get_for_object(entry).select_related("revision"))


def test_every_write_path_creates_a_revision(editor_client, editor):
    """Admin add/change, the import, the article import, the services the REST API calls
    and bulk publishing each leave a revision with its author and comment."""
    editor_client.post(url(Term, "add"), term_form(name="Kursor", short_definition="Znacznik."))
    term = Term.objects.get(slug="kursor")
    editor_client.post(url(Term, "change", term.pk), term_form(name="Kursor", slug="kursor",
                       short_definition="Znacznik strony.", body="Nowa treść."))  # fmt: skip
    [changed, added] = versions(term)
    assert added.revision.user == editor and added.revision.comment == "Dodano."
    assert changed.field_dict["body"] == "Nowa treść." and "Treść" in changed.revision.comment
    importing.import_terms(parse_json(json.dumps([{"name": "Kursor", "slug": "kursor",
                                                  "short_definition": "Z importu."}])))  # fmt: skip
    assert versions(term)[0].revision.comment == "Import."
    importing.import_articles(parse_json(json.dumps([{"title": "A", "slug": "a"}])))
    assert versions(Article.objects.get(slug="a"))[0].revision.comment == "Import."
    article = services.save_article(Article(title="Z API", slug="z-api"), editor=editor,
                                    comment="REST API.")  # fmt: skip
    assert versions(article)[0].revision.comment == "REST API."
    services.publish_entries(entries=[article], editor=editor)
    assert versions(article)[0].field_dict["status"] == Status.PUBLISHED


def test_an_imported_revision_reads_back_like_any_other(editor):
    """The import's bulk-written versions hold the same fields and links as the service's,
    and restore like them."""
    other = make_term("Stos", slug="stos")
    importing.import_terms(parse_json(json.dumps([{"name": "Kolejka", "slug": "kolejka",
        "short_definition": "FIFO.", "synonyms": ["queue"], "categories": ["Struktury"],
        "related": ["stos"], "status": "published", "body": "Treść."}])))  # fmt: skip
    term = Term.objects.get(slug="kolejka")
    [version] = versions(term)
    data = version.field_dict
    assert data["synonyms"] == ["queue"] and data["related"] == [other.pk]
    assert data["categories"] == [Category.objects.get(name="Struktury").pk]
    assert data["published_at"] is not None and data["status"] == Status.PUBLISHED
    term.body = "Zmiana."
    services.save_term(term, editor=editor)
    services.restore_version(version, editor=editor)
    term.refresh_from_db()
    assert term.body == "Treść." and list(term.related.all()) == [other]


def test_a_revision_keeps_the_links_of_its_moment(editor):
    """A version stores categories and related terms with the fields."""
    other = make_term("Stos")
    category = Category.objects.create(name="Struktury")
    term = services.save_term(Term(name="Kolejka", slug="kolejka"), editor=editor,
                              categories=[category], related=[other])  # fmt: skip
    data = versions(term)[0].field_dict
    assert data["categories"] == [category.pk] and data["related"] == [other.pk]


def test_history_shows_who_when_and_a_readable_diff(editor_client, editor):
    """The history page lists revisions newest first with author, comment and a word diff."""
    term = services.save_term(Term(name="Sesja", slug="sesja", body="Stara treść wpisu."),
                              editor=editor, comment="Dodano.")  # fmt: skip
    term.body = "Nowa treść wpisu."
    services.save_term(term, editor=editor, comment="Zmieniono: Treść.")
    text = editor_client.get(url(Term, "history", term.pk)).content.decode()
    assert text.index("Zmieniono: Treść.") < text.index("Dodano.")
    assert "Ewa Nowak" in text
    assert "<del>Stara</del> <ins>Nowa</ins> treść wpisu." in text
    assert "Przywróć tę wersję" in text


def _form_as_shown(client, entry) -> dict[str, str]:
    """The change form's fields as a browser would send them back untouched."""
    import re

    html = client.get(url(Term, "change", entry.pk)).content.decode()
    values = dict(
        re.findall(r'name="(published_at_[01]|edited_version)"[^>]*value="([^"]*)"', html)
    )
    return term_form(name=entry.name, slug=entry.slug, short_definition=entry.short_definition,
                     body=entry.body, status=entry.status, **values)  # fmt: skip


def test_saving_an_untouched_form_changes_nothing(editor_client, editor):
    """Saving the change form without touching it records no change: the publication date
    keeps its fractions of a second (the widget shows whole seconds), and the revision's
    diff and the message say nothing changed."""
    term = make_term("Kursor", slug="kursor", short_definition="Znacznik.", body="Treść.")
    term.published_at = term.published_at.replace(microsecond=123456)
    term.save()
    before = Term.objects.get(pk=term.pk).published_at
    for _ in range(2):
        response = editor_client.post(url(Term, "change", term.pk),
                                      _form_as_shown(editor_client, term), follow=True)  # fmt: skip
        assert response.status_code == 200
        assert Term.objects.get(pk=term.pk).published_at == before
    newest, previous = versions(term)[:2]
    assert newest.revision.comment == previous.revision.comment == "Zapisano bez zmian."
    assert newest.field_dict == previous.field_dict
    text = editor_client.get(url(Term, "history", term.pk)).content.decode()
    assert text.count("Data publikacji") == 1  # in the first revision only


def test_history_never_shows_a_change_no_reader_can_see():
    """A revision whose value differs only in what the history cannot show (the fractions
    of a second of a date) lists no change for that field."""
    from glossary.admin.history import revision_diff

    moment = timezone.now().replace(microsecond=500)
    older = SimpleNamespace(field_dict={"published_at": moment, "body": "a"})
    newer = SimpleNamespace(field_dict={"published_at": moment.replace(microsecond=0), "body": "a"})
    assert revision_diff(Term, older, newer, {}) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Atak, w który Model", "Atak na który model"),
        ("jeden dwa trzy", "cztery pięć sześć"),
        ("Atak,", "Atak"),
        ("słowo", "słowo nowe"),
    ],
)
def test_diff_keeps_removed_and_added_words_apart(old, new):
    """In the revision diff, every word of the text with its markup removed is a word of the
    old or the new text: removed and added words are never run together."""
    import re

    from glossary.admin.history import _inline_diff

    text = re.sub(r"<[^>]+>", "", str(_inline_diff(old, new)))
    assert set(text.split()) <= set(old.split()) | set(new.split()), text


def test_history_query_count_is_constant(editor_client, editor, django_assert_num_queries):
    """The history page costs the same with 2 or 6 revisions (link names in one query per
    link field, not per revision)."""
    others = [make_term(f"Powiązane {i}") for i in range(5)]
    term = services.save_term(Term(name="Kolejka", slug="kolejka"), editor=editor)
    services.save_term(term, editor=editor, related=others[:1])
    url_ = url(Term, "history", term.pk)
    editor_client.get(url_)
    from django.db import connection as db_connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(db_connection) as small:
        editor_client.get(url_)
    for i in range(4):
        services.save_term(term, editor=editor, related=others[: i + 2])
    with django_assert_num_queries(len(small.captured_queries)):
        assert editor_client.get(url_).status_code == 200


def test_history_escapes_hostile_content(editor_client, editor):
    """Diffed text is escaped: an editor's HTML shows as text in the history."""
    term = services.save_term(Term(name="X", slug="x", body="a"), editor=editor)
    term.body = "<script>alert(1)</script>"
    services.save_term(term, editor=editor)
    text = editor_client.get(url(Term, "history", term.pk)).content.decode()
    assert "<ins>&lt;script&gt;alert(1)&lt;/script&gt;</ins>" in text
    assert "<script>alert(1)" not in text


def test_restore_brings_the_old_text_back_as_a_new_revision(editor_client, editor, client):
    """Restoring an old revision puts its text (and links) back, on the page too, and is
    itself the newest revision; nothing is lost (the replaced state stays a revision)."""
    mcp = make_term("MCP", slug="mcp")
    article = services.save_article(Article(title="Tekst", slug="tekst", status=Status.PUBLISHED,
                                            body="Pierwsza wersja o MCP."), editor=editor)  # fmt: skip
    article.body = "Druga wersja."
    services.save_article(article, editor=editor, terms=[mcp])
    first = versions(article)[-1]
    response = editor_client.post(url(Article, "restore", article.pk, first.pk), follow=True)
    assert "Przywrócono wersję z" in messages_of(response)[0]
    article.refresh_from_db()
    assert article.body == "Pierwsza wersja o MCP." and list(article.terms.all()) == []
    assert len(versions(article)) == 3
    assert versions(article)[0].revision.comment.startswith("Przywrócono wersję z")
    page = client.get(article.get_absolute_url()).content.decode()
    assert "Pierwsza wersja o" in page and 'data-term="mcp"' in page


def test_restore_needs_post_and_the_change_permission(editor_client, editor, client):
    """GET is 405; a user without the change permission gets 403 (or the login page)."""
    term = services.save_term(Term(name="Y", slug="y"), editor=editor)
    version = versions(term)[0]
    assert editor_client.get(url(Term, "restore", term.pk, version.pk)).status_code == 405
    viewer = User.objects.create_user("gosc", password="x", is_staff=True)
    client.force_login(viewer)
    assert client.post(url(Term, "restore", term.pk, version.pk)).status_code == 403


def test_restore_of_a_deleted_entry_recreates_it(editor):
    """The last revision of a deleted term brings it back."""
    term = services.save_term(Term(name="Zgubione", slug="zgubione"), editor=editor)
    services.delete_entries(entries=[term], editor=editor)
    [version] = list(Version.objects.get_deleted(Term))
    restored = services.restore_version(version, editor=editor)
    assert Term.objects.get(slug="zgubione").pk == restored.pk


# --- Polish messages ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "count", "text"),
    [
        (Term, 1, "Usunięto 1 pojęcie."),
        (Term, 2, "Usunięto 2 pojęcia."),
        (Term, 5, "Usunięto 5 pojęć."),
        (Term, 22, "Usunięto 22 pojęcia."),
        (Term, 12, "Usunięto 12 pojęć."),
        (Article, 3, "Usunięto 3 artykuły."),
        (Article, 11, "Usunięto 11 artykułów."),
        (Category, 1, "Usunięto 1 kategorię."),
        (Series, 5, "Usunięto 5 serii."),
    ],
)
def test_bulk_messages_have_polish_plural_forms(model, count, text):
    """Counts take the Polish form for 1, 2–4 (not 12–14) and 5+ (gettext plural rules)."""
    with translation.override("pl"):
        assert count_message(model, "deleted", count) == text


@pytest.mark.parametrize(
    ("model", "make", "form", "added"),
    [
        (Term, None, term_form(name="Kolejka", short_definition="x"), "Pojęcie „Kolejka” zostało dodane."),
        (Category, None, {"name": "Sieci", "slug": "", "description": ""}, "Kategoria „Sieci” została dodana."),
        (Series, None, {"name": "Od podstaw", "slug": "", "description": ""}, "Seria „Od podstaw” została dodana."),
    ],
    ids=["term", "category", "series"],
)  # fmt: skip
def test_add_messages_agree_with_the_gender(editor_client, model, make, form, added):
    """ "Dodano" in the right gender for each kind of entry, and the variant for "save and
    continue editing"."""
    response = editor_client.post(url(model, "add"), form, follow=True)
    assert messages_of(response) == [added]
    response = editor_client.post(url(model, "add"), {**form, "name": "Druga", "slug": "",
                                  "_continue": "1"}, follow=True)  # fmt: skip
    assert messages_of(response)[0].endswith("dalej edytować.")


def test_change_and_delete_messages(editor_client, editor):
    """Change and delete (single and bulk) say so in Polish."""
    article = services.save_article(Article(title="Tekst", slug="tekst"), editor=editor)
    form = {"title": "Tekst 2", "slug": "tekst", "lead": "", "body": "", "autolink": "on",
            "status": Status.DRAFT, "published_at_0": "", "published_at_1": "", "author": "",
            "series": "", "series_order": "", "_save": "Zapisz"}  # fmt: skip
    response = editor_client.post(url(Article, "change", article.pk), form, follow=True)
    assert messages_of(response) == ["Artykuł „Tekst 2” został zmieniony."]
    response = editor_client.post(url(Article, "delete", article.pk), {"post": "yes"}, follow=True)
    assert messages_of(response) == ["Artykuł „Tekst 2” został usunięty."]
    terms = [make_term(f"Pojęcie {i}") for i in range(5)]
    response = editor_client.post(
        url(Term, "changelist"),
        {"action": "delete_selected", "post": "yes", ACTION_CHECKBOX_NAME: [t.pk for t in terms]},
        follow=True,
    )
    assert messages_of(response) == ["Usunięto 5 pojęć."]
    assert not Term.objects.exists()


def test_publish_scheduled_command_announces_due_entries(
    monkeypatch, django_capture_on_commit_callbacks
):
    """`publish_scheduled` sends the published events of entries whose time came, once."""
    sent = []
    monkeypatch.setattr("glossary.events._send", lambda sends: sent.extend(sends))
    call_command("publish_scheduled", verbosity=0)  # starts the clock
    when = timezone.now() + timedelta(minutes=5)
    services.save_article(Article(title="Jutro", slug="jutro", status=Status.PUBLISHED,
                                  published_at=when))  # fmt: skip
    assert sent == []
    monkeypatch.setattr(timezone, "now", lambda: when + timedelta(seconds=30))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("publish_scheduled", verbosity=0)
    assert [(channel, data["change"]) for channel, _event, data in sent] == [
        ("article-jutro", "published"),
        ("glossary", "published"),
    ]
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("publish_scheduled", verbosity=0)
    assert sent == []
