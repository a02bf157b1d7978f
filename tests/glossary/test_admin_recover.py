"""Recovering deleted terms and articles in the admin: the list of deleted entries (their
last revision, i.e. who deleted them and when) and recreating one from it, in Polish."""

import importlib
from types import SimpleNamespace

import pytest
from django.apps import apps as global_apps
from django.contrib.auth.models import Group, User
from django.db import connection
from django.urls import reverse
from reversion.models import Version

from glossary import services
from glossary.models import Article, Category, Status, Term

pytestmark = pytest.mark.django_db
editors_migration = importlib.import_module("glossary.migrations.0002_editors_group")


@pytest.fixture
def editor():
    editors_migration.create_editors_group(global_apps, SimpleNamespace(connection=connection))
    user = User.objects.create_user("ewa", password="x", is_staff=True,
                                    first_name="Ewa", last_name="Nowak")  # fmt: skip
    user.groups.add(Group.objects.get(name="Editors"))
    return user


def recover_list(model):
    return reverse(f"admin:glossary_{model._meta.model_name}_recoverlist")


def messages_of(response) -> list[str]:
    return [str(m) for m in response.context["messages"]]


def test_deleted_term_is_listed_and_comes_back_with_its_links(client, editor):
    """A deleted term appears in the list (who, when); recovering it recreates it with its
    id, texts, status and categories, as a new revision, and says so in Polish."""
    category = Category.objects.create(name="Transport", slug="transport")
    term = services.save_term(
        Term(name="Gniazdo", short_definition="Punkt końcowy.", status=Status.PUBLISHED),
        editor=editor,
        categories=[category],
    )
    pk = term.pk
    services.delete_entries(entries=[term], editor=editor)
    client.force_login(editor)
    changelist = client.get(reverse("admin:glossary_term_changelist")).content.decode()
    assert recover_list(Term) in changelist and "Przywróć usunięte" in changelist
    listing = client.get(recover_list(Term))
    html = listing.content.decode()
    assert listing.status_code == 200 and "Gniazdo" in html and "Ewa Nowak" in html
    version = Version.objects.get_deleted(Term).get()
    response = client.post(reverse("admin:glossary_term_recover", args=[version.pk]), follow=True)
    assert messages_of(response) == [
        "Przywrócono „Gniazdo” w ostatniej zapisanej wersji (także ze statusem publikacji)."
    ]
    back = Term.objects.get(pk=pk)
    assert back.short_definition == "Punkt końcowy." and back.status == Status.PUBLISHED
    assert list(back.categories.all()) == [category]
    assert Version.objects.get_for_object(back).first().revision.comment.startswith("Przywrócono")
    assert "Gniazdo" not in client.get(recover_list(Term)).content.decode()


def test_deleted_articles_are_recoverable_too(client, editor):
    """The same list and recovery for articles."""
    article = services.save_article(Article(title="Znikający tekst", slug="znika"), editor=editor)
    services.delete_entries(entries=[article], editor=editor)
    client.force_login(editor)
    assert "Znikający tekst" in client.get(recover_list(Article)).content.decode()
    version = Version.objects.get_deleted(Article).get()
    client.post(reverse("admin:glossary_article_recover", args=[version.pk]))
    assert Article.objects.filter(slug="znika").exists()


def test_a_taken_slug_is_refused_with_the_models_message(client, editor):
    """If another entry took the slug since, nothing is recreated and the reason is shown."""
    term = services.save_term(Term(name="Kanał", short_definition="Def."), editor=editor)
    services.delete_entries(entries=[term], editor=editor)
    services.save_term(Term(name="Kanał", short_definition="Nowy."), editor=editor)
    client.force_login(editor)
    version = Version.objects.get_deleted(Term).get()
    response = client.post(reverse("admin:glossary_term_recover", args=[version.pk]), follow=True)
    [message] = messages_of(response)
    assert message.startswith("Nie można przywrócić „Kanał”:")
    assert Term.objects.filter(name="Kanał").count() == 1


def test_recovery_needs_post_and_the_rights(client, editor):
    """GET on the recover action is 405; a staff account without add/change rights gets
    403 on the list and the action; a live entry's version is not "deleted" (404)."""
    term = services.save_term(Term(name="Żywe", short_definition="Def."), editor=editor)
    live = Version.objects.get_for_object(term).first()
    client.force_login(editor)
    assert client.get(reverse("admin:glossary_term_recover", args=[live.pk])).status_code == 405
    assert client.post(reverse("admin:glossary_term_recover", args=[live.pk])).status_code == 404
    outsider = User.objects.create_user("gosc", password="x", is_staff=True)
    client.force_login(outsider)
    assert client.get(recover_list(Term)).status_code == 403
    assert client.post(reverse("admin:glossary_term_recover", args=[live.pk])).status_code == 403


def test_the_deleted_list_pages_by_twenty_newest_first(client, editor):
    """More than 20 deleted entries are paged (`?strona=`): page 1 links to the older page,
    page 2 back to the newer one, and every deleted entry is on exactly one page."""
    names = [f"Usunięte {i:02d}" for i in range(21)]
    for name in names:
        term = services.save_term(Term(name=name, short_definition="Był."), editor=editor)
        services.delete_entries(entries=[term], editor=editor)
    client.force_login(editor)
    first = client.get(recover_list(Term)).content.decode()
    second = client.get(recover_list(Term), {"strona": 2}).content.decode()
    assert 'href="?strona=2">starsze →' in first and "← nowsze" not in first
    assert 'href="?strona=1">← nowsze' in second and "starsze →" not in second
    assert "Strona 1 z 2" in first and "Strona 2 z 2" in second
    assert sum(n in first for n in names) == 20 and sum(n in second for n in names) == 1
    assert not any(n in first and n in second for n in names)
