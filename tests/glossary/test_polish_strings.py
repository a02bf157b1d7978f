"""Polish where readers and editors see text: the admin's login-throttling section, the
counts and limits messages say, the non-breaking space after an abbreviation in titles."""

import re

import pytest

pytestmark = pytest.mark.django_db

ENGLISH_AXES = ["Access failures", "Access attempts", "Access logs", "Access attempt expirations",
                ">Axes<"]  # fmt: skip


def test_admin_login_throttling_section_is_polish(admin_client):
    """The admin index names django-axes' section and its models in Polish."""
    text = admin_client.get("/admin/").content.decode()
    for english in ENGLISH_AXES:
        assert english not in text, english
    assert "Logowanie: próby i blokady" in text
    assert "Nieudane logowania" in text
    for model in ("accessfailurelog", "accessattempt", "accesslog"):
        page = admin_client.get(f"/admin/axes/{model}/")
        assert page.status_code == 200
        assert not re.search(r"Access (failure|attempt|log)", page.content.decode()), model


def test_make_superuser_asks_in_polish(monkeypatch):
    """`make superuser` (manage.py superuser) asks for name, e-mail and password in Polish,
    says in Polish why a password is refused, and creates a superuser."""
    from io import StringIO

    from django.contrib.auth.models import User
    from django.core.management import call_command

    from glossary.management.commands import superuser

    prompts, answers = [], iter(["ewa", "ewa@example.com"])
    secrets = iter(["krótkie", "krótkie", "Dlugie-haslo-1", "inne", "Dlugie-haslo-1",
                    "Dlugie-haslo-1"])  # fmt: skip

    def ask(prompt):
        prompts.append(prompt)
        return next(answers)

    def ask_secret(prompt):
        prompts.append(prompt)
        return next(secrets)

    monkeypatch.setattr(superuser, "ask", ask)
    monkeypatch.setattr(superuser, "ask_secret", ask_secret)
    out, err = StringIO(), StringIO()
    call_command("superuser", stdout=out, stderr=err)
    assert prompts[:4] == ["Nazwa użytkownika: ", "Adres e-mail (można pominąć): ", "Hasło: ",
                           "Hasło (powtórz): "]  # fmt: skip
    assert "Hasła się różnią" in err.getvalue()
    assert "To hasło jest za krótkie" in err.getvalue()
    assert "Utworzono konto administratora „ewa”" in out.getvalue()
    assert User.objects.get(username="ewa").is_superuser
    for text in [*prompts, out.getvalue(), err.getvalue()]:
        assert not re.search(r"[Pp]assword|leave blank|successfully", text), text


def test_titles_keep_an_abbreviation_with_the_next_word(client):
    """An article title never breaks a line after an abbreviation such as "cz.": the space
    after it is non-breaking on the article page, in lists and in search results."""
    from django.urls import reverse

    from tests.factories import make_article

    article = make_article("MCP od podstaw, cz. 1: czym jest MCP, np. w praktyce")
    pages = [
        article.get_absolute_url(),
        reverse("glossary:articles"),
        reverse("glossary:search") + "?q=podstaw",
    ]
    for url in pages:
        text = client.get(url).content.decode()
        assert "cz.\u00a01" in text, url
        assert "cz. 1" not in text.split("<body", 1)[1], url
        assert "np.\u00a0w praktyce" in text, url


def test_the_admin_says_which_characters_a_slug_may_have(admin_client):
    """A slug with other characters is refused with the rule (lower-case a–z, digits,
    hyphens), not Django's "letters, numbers, underscores or hyphens"."""
    response = admin_client.post(
        "/admin/glossary/term/add/",
        {"name": "Test", "slug": "zła", "short_definition": "D.", "status": "draft",
         "_save": "Zapisz"},
    )  # fmt: skip
    text = response.content.decode()
    assert "Slug może zawierać tylko małe litery a–z, cyfry i myślniki." in text
    assert "podkreślenia" not in text


def test_an_entry_without_revisions_is_described_in_proper_polish(admin_client):
    """The history of an entry with no revision yet says so without a noun of the wrong
    gender ("To artykuł"): "Ten wpis nie ma jeszcze zapisanych wersji"."""
    from tests.factories import make_article

    article = make_article("Bez historii")
    text = admin_client.get(f"/admin/glossary/article/{article.pk}/history/").content.decode()
    assert "Ten wpis nie ma jeszcze zapisanych wersji" in text
    assert "To artykuł" not in text
