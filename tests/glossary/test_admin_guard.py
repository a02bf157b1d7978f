"""The admin's lost-update guard: the change form refuses to overwrite a save someone else
made after the form was opened, keeps everything the editor typed, and says so in Polish;
saving again is then a deliberate overwrite."""

import importlib
import re
from types import SimpleNamespace

import pytest
from django.apps import apps as global_apps
from django.contrib.auth.models import Group, User
from django.db import connection
from django.urls import reverse

from glossary import services
from glossary.models import Article, Status, Term

pytestmark = pytest.mark.django_db
editors_migration = importlib.import_module("glossary.migrations.0002_editors_group")


@pytest.fixture
def editors():
    editors_migration.create_editors_group(global_apps, SimpleNamespace(connection=connection))
    group = Group.objects.get(name="Editors")
    users = []
    for username, first, last in (("ewa", "Ewa", "Nowak"), ("jan", "Jan", "Kowalski")):
        user = User.objects.create_user(username, password="x", is_staff=True,
                                        first_name=first, last_name=last)  # fmt: skip
        user.groups.add(group)
        users.append(user)
    return users


def change_url(model, pk):
    return reverse(f"admin:glossary_{model._meta.model_name}_change", args=[pk])


def hidden_version(html: str) -> str:
    match = re.search(r'<input type="hidden" name="edited_version" value="([^"]*)"', html)
    assert match, "the change form carries the version it shows"
    return match[1]


def term_post(term, version, **values):
    data = {"name": term.name, "slug": term.slug, "short_definition": term.short_definition,
            "body": term.body, "synonyms": "", "status": term.status, "published_at_0": "",
            "published_at_1": "", "autolink": "on", "linkable": "on", "_save": "Zapisz",
            "edited_version": version}  # fmt: skip
    return {**data, **values}


def test_a_save_made_since_the_form_opened_is_not_overwritten(client, editors):
    """Ewa opens the form; Jan saves; Ewa's save is refused with a Polish message naming
    Jan, her text is still in the form, and Jan's text is what the database holds."""
    ewa, jan = editors
    term = services.save_term(Term(name="Kolejka", short_definition="Pierwsza."), editor=ewa)
    client.force_login(ewa)
    opened = client.get(change_url(Term, term.pk))
    version = hidden_version(opened.content.decode())
    term.refresh_from_db()
    term.short_definition = "Wersja Jana."
    services.save_term(term, editor=jan)
    response = client.post(
        change_url(Term, term.pk), term_post(term, version, short_definition="Wersja Ewy.")
    )
    assert response.status_code == 200  # the form again, not a redirect
    html = response.content.decode()
    assert "Jan Kowalski" in html and "NIE zostały" in html
    assert "Wersja Ewy." in html  # nothing she typed is lost
    assert Term.objects.get(pk=term.pk).short_definition == "Wersja Jana."
    # The form now carries the current version: saving again is her conscious choice.
    again = client.post(
        change_url(Term, term.pk),
        term_post(term, hidden_version(html), short_definition="Wersja Ewy."),
    )
    assert again.status_code == 302
    assert Term.objects.get(pk=term.pk).short_definition == "Wersja Ewy."


def test_an_unchanged_entry_saves_normally(client, editors):
    """With no save in between the form saves as always (and twice in a row, each time
    from a freshly opened form)."""
    ewa, _jan = editors
    term = services.save_term(Term(name="Bufor", short_definition="Raz."), editor=ewa)
    client.force_login(ewa)
    for text in ("Dwa.", "Trzy."):
        version = hidden_version(client.get(change_url(Term, term.pk)).content.decode())
        term.refresh_from_db()
        response = client.post(change_url(Term, term.pk), term_post(term, version, body=text))
        assert response.status_code == 302, response.content.decode()[:2000]
        assert Term.objects.get(pk=term.pk).body == text


def test_articles_are_guarded_too(client, editors):
    """The same guard on the article form."""
    ewa, jan = editors
    article = services.save_article(Article(title="Tekst", slug="tekst"), editor=ewa)
    client.force_login(ewa)
    version = hidden_version(client.get(change_url(Article, article.pk)).content.decode())
    article.body = "Jan był pierwszy."
    services.save_article(article, editor=jan)
    form = {"title": "Tekst", "slug": "tekst", "lead": "", "body": "Ewa pisze.",
            "autolink": "on", "status": Status.DRAFT, "published_at_0": "", "published_at_1": "",
            "author": ewa.pk, "series": "", "series_order": "", "_save": "Zapisz",
            "edited_version": version}  # fmt: skip
    response = client.post(change_url(Article, article.pk), form)
    assert response.status_code == 200 and "Ewa pisze." in response.content.decode()
    article.refresh_from_db()
    assert article.body == "Jan był pierwszy."


def test_the_add_form_has_no_guard(client, editors):
    """A new entry has nothing to overwrite: the add form carries no version."""
    client.force_login(editors[0])
    html = client.get(reverse("admin:glossary_term_add")).content.decode()
    assert 'name="edited_version"' not in html
