"""The editors' admin: access, search and filters, the editing flow, bulk status changes,
validation on the form (never a 500), the Editors group, and constant changelist queries."""

import importlib
from types import SimpleNamespace

import pytest
from django.apps import apps as global_apps
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Group, User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import NoReverseMatch, reverse
from django.utils.html import escape

from glossary.models import Article, Category, Series, Status, Term
from tests.factories import (
    make_article,
    make_category,
    make_draft_term,
    make_future_term,
    make_term,
)

pytestmark = pytest.mark.django_db

editors_migration = importlib.import_module("glossary.migrations.0002_editors_group")

EDITOR_PERMISSIONS = {
    ("auth", "view_user"),
    ("glossary", "add_term"),
    ("glossary", "change_term"),
    ("glossary", "delete_term"),
    ("glossary", "view_term"),
    ("glossary", "add_article"),
    ("glossary", "change_article"),
    ("glossary", "delete_article"),
    ("glossary", "view_article"),
    ("glossary", "add_category"),
    ("glossary", "change_category"),
    ("glossary", "delete_category"),
    ("glossary", "view_category"),
    ("glossary", "add_series"),
    ("glossary", "change_series"),
    ("glossary", "delete_series"),
    ("glossary", "view_series"),
}


def run_migration_code(func):
    """Run a RunPython function of migration 0002 against the live app registry."""
    func(global_apps, SimpleNamespace(connection=connection))


@pytest.fixture
def editors_group():
    # Re-running the (idempotent) migration code keeps this independent of tests elsewhere
    # that flush the database.
    run_migration_code(editors_migration.create_editors_group)
    return Group.objects.get(name="Editors")


@pytest.fixture
def superuser():
    return User.objects.create_superuser("naczelna", "naczelna@example.com", "x")


@pytest.fixture
def editor(editors_group):
    user = User.objects.create_user("redaktor", "redaktor@example.com", "x", is_staff=True)
    user.groups.add(editors_group)
    return user


@pytest.fixture
def editor_client(client, editor):
    client.force_login(editor)
    return client


@pytest.fixture
def admin_client_(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture(params=["superuser", "editor"])
def staff_client(request, client):
    user = request.getfixturevalue(request.param)
    client.force_login(user)
    client.user = user
    return client


@pytest.fixture
def content():
    category = make_category("Protokoły")
    series = Series.objects.create(name="Agenci od podstaw", slug="agenci-od-podstaw")
    term = make_term("Łańcuch narzędzi", synonyms=["tool chain", "łańcuch"])
    term.categories.add(category)
    article = make_article(terms=[term], series=series, series_order=1)
    return SimpleNamespace(term=term, article=article, category=category, series=series)


def admin_url(model, view, *args):
    return reverse(f"admin:glossary_{model._meta.model_name}_{view}", args=args)


def term_form(**values):
    """POST data of the term add/change form, as the browser sends it."""
    data = {
        "name": "",
        "slug": "",
        "short_definition": "",
        "body": "",
        "synonyms": "",
        "status": Status.DRAFT,
        "published_at_0": "",
        "published_at_1": "",
        "_save": "Zapisz",
    }
    data.update(values)
    return data


def article_form(**values):
    data = {
        "title": "",
        "slug": "",
        "lead": "",
        "body": "",
        "series": "",
        "series_order": "",
        "status": Status.DRAFT,
        "published_at_0": "",
        "published_at_1": "",
        "author": "",
        "_save": "Zapisz",
    }
    data.update(values)
    return data


def results(response):
    return list(response.context["cl"].result_list)


# --- access -----------------------------------------------------------------------------


@pytest.mark.parametrize("model", [Term, Article, Category, Series])
def test_staff_open_every_admin_page(staff_client, content, model):
    """A superuser and an Editors-group member open the changelist, add and change form of
    every content model."""
    obj = {Term: content.term, Article: content.article, Category: content.category}.get(
        model, content.series
    )
    for url in (
        admin_url(model, "changelist"),
        admin_url(model, "add"),
        admin_url(model, "change", obj.pk),
    ):
        assert staff_client.get(url).status_code == 200, url


def test_admin_site_is_titled_in_polish(admin_client_):
    """The admin header and page title say "Słownik — redakcja"."""
    response = admin_client_.get(reverse("admin:index"))
    assert "Słownik — redakcja" in response.text
    assert "<title>" in response.text and "Słownik — redakcja</title>" in response.text


@pytest.mark.parametrize(
    "url",
    [
        reverse("admin:auth_user_changelist"),
        reverse("admin:auth_user_add"),
        reverse("admin:auth_group_changelist"),
        reverse("admin:auth_group_add"),
    ],
)
def test_editor_cannot_manage_accounts(editor_client, url):
    """An editor gets 403 on the user and group admin pages."""
    assert editor_client.get(url).status_code == 403


def test_editor_cannot_open_a_user_account(editor_client, superuser, editors_group):
    """`view_user` (for the author autocomplete) does not open account or group pages."""
    assert (
        editor_client.get(reverse("admin:auth_user_change", args=[superuser.pk])).status_code == 403
    )
    url = reverse("admin:auth_group_change", args=[editors_group.pk])
    assert editor_client.get(url).status_code == 403


def test_editor_index_hides_account_management(editor_client):
    """The admin index offers editors the content models, not users or groups."""
    response = editor_client.get(reverse("admin:index"))
    assert admin_url(Term, "changelist") in response.text
    assert reverse("admin:auth_user_changelist") not in response.text
    assert reverse("admin:auth_group_changelist") not in response.text


def test_author_autocomplete_lists_active_staff_for_editors(editor_client, editor, superuser):
    """The article author autocomplete works for an editor and lists active staff only."""
    User.objects.create_user("czytelnik", "c@example.com", "x")
    response = editor_client.get(
        reverse("admin:autocomplete"),
        {"app_label": "glossary", "model_name": "article", "field_name": "author", "term": ""},
    )
    assert response.status_code == 200
    names = {row["text"] for row in response.json()["results"]}
    assert names == {editor.username, superuser.username}


def test_term_autocomplete_matches_folded_text(editor_client, content):
    """Related-term autocomplete finds "Łańcuch narzędzi" when typed without Polish letters."""
    response = editor_client.get(
        reverse("admin:autocomplete"),
        {"app_label": "glossary", "model_name": "term", "field_name": "related", "term": "lancuch"},
    )
    assert [row["text"] for row in response.json()["results"]] == ["Łańcuch narzędzi"]


def test_term_autocomplete_puts_the_exact_name_first(editor_client, content):
    """Typing a term's exact name into the related-terms autocomplete lists that term first,
    before alphabetically earlier terms that merely mention it in their definitions."""
    make_term("Agent MCP", short_definition="Pojęcie, które wspomina MCP.")
    make_term("API", short_definition="Też wspomina MCP w definicji.")
    make_term("MCP", short_definition="Model Context Protocol.")
    response = editor_client.get(
        reverse("admin:autocomplete"),
        {"app_label": "glossary", "model_name": "term", "field_name": "related", "term": "mcp"},
    )
    texts = [row["text"] for row in response.json()["results"]]
    assert texts[0] == "MCP" and "API" in texts


# --- search and filters -------------------------------------------------------------------


@pytest.mark.parametrize(
    "query",
    ["narzędzi", "lancuch-narzedzi", "tool chain", "łańcuch", "LANCUCH", "Wspólny opis"],
    ids=["name", "slug", "synonym", "polish-synonym", "folded", "definition"],
)
def test_term_search(admin_client_, content, query):
    """The term search box matches name, slug, synonyms and short definition, with or
    without Polish letters."""
    content.term.short_definition = "Wspólny opis kroków agenta."
    content.term.save()
    make_term("Inne pojęcie", short_definition="Coś zupełnie innego.")
    response = admin_client_.get(admin_url(Term, "changelist"), {"q": query})
    assert response.status_code == 200
    assert results(response) == [content.term]


def test_article_search(admin_client_, content):
    """The article search box matches title and lead."""
    make_article("Zupełnie inny tekst")
    content.article.lead = "O łańcuchach narzędzi."
    content.article.save()
    response = admin_client_.get(admin_url(Article, "changelist"), {"q": "łańcuchach"})
    assert results(response) == [content.article]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"widocznosc": "published"}, {"live"}),
        ({"widocznosc": "scheduled"}, {"future"}),
        ({"widocznosc": "draft"}, {"draft"}),
        ({"status__exact": "published"}, {"live", "future"}),
        ({"status__exact": "draft"}, {"draft"}),
        ({}, {"live", "future", "draft"}),
    ],
)
def test_term_status_and_visibility_filters(admin_client_, params, expected):
    """The "widoczność" filter splits terms into published, scheduled and drafts; the status
    filter goes by the status field alone."""
    make_term("live"), make_future_term("future"), make_draft_term("draft")
    response = admin_client_.get(admin_url(Term, "changelist"), params)
    assert {t.name for t in results(response)} == expected


def test_term_category_filter(admin_client_, content):
    """The category filter keeps the terms of that category."""
    make_term("Bez kategorii")
    response = admin_client_.get(
        admin_url(Term, "changelist"), {"categories__id__exact": content.category.pk}
    )
    assert results(response) == [content.term]


def test_search_within_a_filter(admin_client_, content):
    """Search combined with a category filter stays within the category."""
    make_term("Łańcuch bloków")
    response = admin_client_.get(
        admin_url(Term, "changelist"),
        {"categories__id__exact": content.category.pk, "q": "lancuch"},
    )
    assert results(response) == [content.term]


def test_article_visibility_filter(admin_client_, content):
    """The "widoczność" filter works on articles too."""
    draft = make_article("Szkic artykułu", status=Status.DRAFT)
    response = admin_client_.get(admin_url(Article, "changelist"), {"widocznosc": "draft"})
    assert results(response) == [draft]


@pytest.mark.parametrize("model", [Term, Article])
def test_every_filter_choice_opens(admin_client_, content, model):
    """Every choice of every list filter (incl. the updated_at dates) gives a 200 page."""
    url = admin_url(model, "changelist")
    response = admin_client_.get(url)
    cl = response.context["cl"]
    query_strings = {
        choice["query_string"] for spec in cl.filter_specs for choice in spec.choices(cl)
    }
    assert len(query_strings) > 5
    for query_string in query_strings:
        assert admin_client_.get(url + query_string).status_code == 200, query_string


# --- editing flow -------------------------------------------------------------------------


def test_add_edit_publish_flow(editor_client, editor, content):
    """An editor adds a draft term (slug from the name, synonyms one per line), then
    publishes it with an empty date, which means "now"."""
    response = editor_client.post(
        admin_url(Term, "add"),
        term_form(
            name="Żądanie zwrotne",
            synonyms="callback\n  webhook  \n\nCallback\nżądanie zwrotne HTTP",
            categories=[content.category.pk],
            related=[content.term.pk],
        ),
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    term = Term.objects.get(name="Żądanie zwrotne")
    assert term.slug == "zadanie-zwrotne"
    assert term.synonyms == ["callback", "webhook", "żądanie zwrotne HTTP"]
    assert term.status == Status.DRAFT and term.published_at is None
    assert term.last_editor == editor
    assert list(term.categories.all()) == [content.category]
    assert list(term.related.all()) == [content.term]

    change_url = admin_url(Term, "change", term.pk)
    form_page = editor_client.get(change_url)
    assert "callback\nwebhook\nżądanie zwrotne HTTP</textarea>" in form_page.text

    response = editor_client.post(
        change_url,
        term_form(
            name="Żądanie zwrotne",
            slug="zadanie-zwrotne",
            short_definition="Wywołanie, które serwer wykonuje po zdarzeniu.",
            body="Zobacz **webhook**.",
            synonyms="callback\nwebhook",
            status=Status.PUBLISHED,
            categories=[content.category.pk],
        ),
    )
    assert response.status_code == 302
    term.refresh_from_db()
    assert term.is_public
    assert term.synonyms == ["callback", "webhook"]
    assert "<strong>webhook</strong>" in term.body_html
    assert term.search_text.startswith("zadanie zwrotne callback webhook")
    assert Term.objects.published().filter(pk=term.pk).exists()
    try:
        url = reverse("glossary:term", kwargs={"slug": term.slug})
    except NoReverseMatch:
        return
    assert term.get_absolute_url() == url


def test_change_form_offers_view_on_site_for_drafts(admin_client_):
    """A draft's change form links to "view on site", which redirects to its public URL."""
    term = make_draft_term("Szkic pojęcia")
    response = admin_client_.get(admin_url(Term, "change", term.pk))
    ct = ContentType.objects.get_for_model(Term)
    shortcut = reverse("admin:view_on_site", args=[ct.pk, term.pk])
    assert shortcut in response.text
    try:
        expected = term.get_absolute_url()
    except NoReverseMatch:
        pytest.skip("the public term page is not routed yet")
    response = admin_client_.get(shortcut)
    assert response.status_code == 302
    assert response["Location"].endswith(expected)


def test_save_stamps_last_editor(client, editor, superuser):
    """Saving a term or an article through the admin records who saved it last."""
    term = make_term("Agent")
    article = make_article("O agentach")
    client.force_login(editor)
    client.post(
        admin_url(Term, "change", term.pk),
        term_form(name="Agent", slug="agent", short_definition="Program.", status="published"),
    )
    client.force_login(superuser)
    client.post(
        admin_url(Article, "change", article.pk),
        article_form(title="O agentach", slug=article.slug, status="published"),
    )
    term.refresh_from_db(), article.refresh_from_db()
    assert term.last_editor == editor
    assert article.last_editor == superuser


def test_article_author_defaults_to_current_user(editor_client, editor):
    """The add form proposes the current user as author, and an article added without one
    gets the current user."""
    response = editor_client.get(admin_url(Article, "add"))
    assert response.context["adminform"].form.initial["author"] == editor.pk
    response = editor_client.post(admin_url(Article, "add"), article_form(title="Mój tekst"))
    assert response.status_code == 302
    article = Article.objects.get(title="Mój tekst")
    assert (article.author, article.last_editor, article.slug) == (editor, editor, "moj-tekst")


def test_category_and_series_slugs_come_from_the_name(admin_client_):
    """An empty slug on a category or series is filled from the name, Polish letters folded."""
    admin_client_.post(admin_url(Category, "add"), {"name": "Bezpieczeństwo", "slug": ""})
    admin_client_.post(admin_url(Series, "add"), {"name": "Łatwe wdrożenia", "slug": ""})
    assert Category.objects.get().slug == "bezpieczenstwo"
    assert Series.objects.get().slug == "latwe-wdrozenia"


# --- bulk actions -------------------------------------------------------------------------


def run_action(client, model, action, objects):
    return client.post(
        admin_url(model, "changelist"),
        {"action": action, ACTION_CHECKBOX_NAME: [obj.pk for obj in objects]},
        follow=True,
    )


def test_bulk_publish_reports_terms_without_definition(editor_client, editor):
    """ "Opublikuj zaznaczone" publishes the valid drafts and reports, without crashing, a
    draft that has no short definition; derived fields and the editor are kept current."""
    ready = make_draft_term("Gotowe")
    empty = make_draft_term("Bez definicji", short_definition="")
    before = ready.updated_at
    response = run_action(editor_client, Term, "publish_selected", [ready, empty])
    assert response.status_code == 200
    ready.refresh_from_db(), empty.refresh_from_db()
    assert ready.is_public and ready.last_editor == editor and ready.updated_at > before
    assert empty.status == Status.DRAFT and empty.last_editor is None
    levels = {str(m): m.level_tag for m in response.context["messages"]}
    assert levels == {
        "Nie opublikowano „Bez definicji”: Opublikowane pojęcie musi mieć krótką definicję.": (
            "error"
        ),
        "Opublikowano 1 pojęcie.": "success",
    }


def test_bulk_publish_keeps_scheduled_dates(admin_client_):
    """Publishing an already scheduled term leaves its future date alone."""
    future = make_future_term("Jutro")
    planned = future.published_at
    run_action(admin_client_, Term, "publish_selected", [future])
    future.refresh_from_db()
    assert future.published_at == planned and not future.is_public


def test_bulk_unpublish(editor_client, editor):
    """ "Cofnij do szkicu" turns published terms and articles back into drafts."""
    terms = [make_term("Raz"), make_term("Dwa")]
    article = make_article("Trzy")
    response = run_action(editor_client, Term, "unpublish_selected", terms)
    assert "Cofnięto do szkicu 2 pojęcia." in response.text
    run_action(editor_client, Article, "unpublish_selected", [article])
    assert not Term.objects.published().exists()
    assert not Article.objects.published().exists()
    assert set(Term.objects.values_list("last_editor", flat=True)) == {editor.pk}


def test_bulk_publish_articles(admin_client_, superuser):
    """Articles are published in bulk the same way."""
    article = make_article("Szkic", status=Status.DRAFT)
    run_action(admin_client_, Article, "publish_selected", [article])
    article.refresh_from_db()
    assert article.is_public and article.last_editor == superuser


# --- validation on the form ---------------------------------------------------------------


def existing_content():
    make_term("Agent")
    series = Series.objects.create(name="Seria", slug="seria")
    make_article("Pierwszy", series=series, series_order=1)
    make_category("Sieci")
    return series


VALIDATION_CASES = [
    pytest.param(
        Term, lambda s: term_form(name="AGENT"), "__all__", "duplicate_name",
        id="term-name-case-duplicate",
    ),
    pytest.param(
        Term, lambda s: term_form(name="Nowe", status="published"), "short_definition",
        "definition_required", id="publish-without-definition",
    ),
    pytest.param(
        Term, lambda s: term_form(name="Nowe", slug="Zly_Slug"), "slug", "invalid_slug",
        id="slug-invalid-characters",
    ),
    pytest.param(
        Term, lambda s: term_form(name="Nowe", slug="żółw"), "slug", "invalid",
        id="slug-non-ascii",
    ),
    pytest.param(
        Term, lambda s: term_form(name="Agent!", slug=""), "slug", "unique",
        id="generated-slug-duplicate",
    ),
    pytest.param(
        Term, lambda s: term_form(name="!!!"), "slug", "slug_required", id="name-without-slug",
    ),
    pytest.param(
        Term, lambda s: term_form(name="Nowe", published_at_0="jutro", published_at_1="12:00"),
        "published_at", "invalid", id="bad-date",
    ),
    pytest.param(
        Term, lambda s: term_form(name="Nowe", english_definition="x" * 301),
        "english_definition", "max_length", id="english-definition-too-long",
    ),
    pytest.param(
        Term, lambda s: term_form(name="Nowe", english_name="x" * 201), "english_name",
        "max_length", id="english-name-too-long",
    ),
    pytest.param(
        Term, lambda s: term_form(name="Nowe", english_name="Tool\x00call"), "english_name",
        "null_characters_not_allowed", id="english-name-nul",
    ),
    pytest.param(
        Term, lambda s: term_form(name="Nowe", english_definition="A\x01tool"),
        "english_definition", "control_characters", id="english-definition-control",
    ),
    pytest.param(
        Term, lambda s: term_form(name="Nowe", asked_as="jak to\x00nazwać"), "asked_as",
        "control_characters", id="asked-as-nul",
    ),
    pytest.param(
        Term, lambda s: term_form(name="Nowe", synonyms="jeden\nz\x00nulem"), "synonyms",
        "control_characters", id="synonym-nul",
    ),
    pytest.param(
        Article, lambda s: article_form(title="Drugi", series=s.pk), "series_order",
        "series_order_required", id="series-without-order",
    ),
    pytest.param(
        Article, lambda s: article_form(title="Drugi", series=s.pk, series_order="1"), "__all__",
        "duplicate_series_order", id="duplicate-series-order",
    ),
    pytest.param(
        Article, lambda s: article_form(title="Drugi", series=s.pk, series_order="-1"),
        "series_order", "min_value", id="negative-series-order",
    ),
    pytest.param(
        Article, lambda s: article_form(title="Drugi", author="999999"), "author",
        "invalid_choice", id="unknown-author",
    ),
    pytest.param(
        Category, lambda s: {"name": "SIECI", "slug": "inne"}, "__all__", "duplicate_name",
        id="category-name-case-duplicate",
    ),
    pytest.param(
        Series, lambda s: {"name": "Inna", "slug": "seria"}, "slug", "unique",
        id="series-slug-duplicate",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("model", "data", "field", "code"), VALIDATION_CASES)
def test_validation_errors_show_on_the_form(editor_client, model, data, field, code):
    """Invalid input is answered with the form again (200) carrying the coded error on the
    right field, shown on the page, never a 500, and nothing is saved."""
    series = existing_content()
    count = model.objects.count()
    response = editor_client.post(admin_url(model, "add"), data(series))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors.as_data()
    error = next((e for e in errors.get(field, []) if e.code == code), None)
    assert error is not None, errors
    assert 'class="errorlist' in response.text
    assert escape(error.message % (error.params or {})) in response.text
    assert model.objects.count() == count


def test_term_form_edits_the_english_name_definition_and_asked_as(editor_client):
    """The term form edits the English name and definition (one line of plain text,
    whitespace collapsed) and the phrases readers asked by ("Pytano też jako", one per line,
    kept like synonyms), and shows them again on the change form."""
    response = editor_client.post(
        admin_url(Term, "add"),
        term_form(
            name="Wywołanie narzędzia",
            english_name="  Tool   call ",
            english_definition="A request from the model\nto run one tool.",
            asked_as="jak model odpala funkcję\n\n  jak model odpala funkcję \nfunction calling",
        ),
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    term = Term.objects.get(name="Wywołanie narzędzia")
    assert term.english_name == "Tool call"
    assert term.english_definition == "A request from the model to run one tool."
    assert term.asked_as == ["jak model odpala funkcję", "function calling"]
    page = editor_client.get(admin_url(Term, "change", term.pk)).text
    assert 'value="Tool call"' in page and "Pytano też jako" in page
    assert "jak model odpala funkcję\nfunction calling</textarea>" in page


def test_the_term_rules_are_reported_together(editor_client):
    """The model's rules are checked together: a plain-text error and a missing definition
    are both on the form at once, so the editor fixes them in one pass."""
    response = editor_client.post(
        admin_url(Term, "add"),
        term_form(name="Nowe", status="published", english_definition="a\x01b"),
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors.as_data()
    assert [e.code for e in errors["english_definition"]] == ["control_characters"]
    assert [e.code for e in errors["short_definition"]] == ["definition_required"]


def test_changing_a_published_term_keeps_its_rules(editor_client):
    """Clearing the definition of a published term is refused on the change form."""
    term = make_term("Agent")
    response = editor_client.post(
        admin_url(Term, "change", term.pk),
        term_form(name="Agent", slug="agent", status="published"),
    )
    assert response.status_code == 200
    assert "Opublikowane pojęcie musi mieć krótką definicję." in response.text
    term.refresh_from_db()
    assert term.short_definition == "Krótka definicja."


# --- the Editors group --------------------------------------------------------------------


def test_editors_group_has_exactly_the_editing_permissions(editors_group):
    """The Editors group holds add/change/delete/view on the four content models and
    view on users, nothing else."""
    perms = set(editors_group.permissions.values_list("content_type__app_label", "codename"))
    assert perms == EDITOR_PERMISSIONS


def test_editors_group_migration_is_idempotent_and_reversible(editors_group):
    """Running the migration again resets the group to exactly its permissions; reversing it
    removes the group."""
    extra = ContentType.objects.get_for_model(User).permission_set.get(codename="change_user")
    editors_group.permissions.add(extra)
    run_migration_code(editors_migration.create_editors_group)
    group = Group.objects.get(name="Editors")
    assert set(group.permissions.values_list("content_type__app_label", "codename")) == (
        EDITOR_PERMISSIONS
    )
    run_migration_code(editors_migration.remove_editors_group)
    assert not Group.objects.filter(name="Editors").exists()


# --- query counts -------------------------------------------------------------------------


def changelist_queries(client, model) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(admin_url(model, "changelist"))
    assert response.status_code == 200
    return len(ctx.captured_queries)


def make_rows(n, *, editor):
    """n terms, categories, series and articles, each with its own related rows."""
    for _ in range(n):
        term = make_term()
        category = make_category()
        term.categories.add(category)
        series = Series.objects.create(name=f"Seria {category.pk}", slug=f"seria-{category.pk}")
        article = make_article(terms=[term], series=series, series_order=1, author=editor)
        Term.objects.filter(pk=term.pk).update(last_editor=editor)
        Article.objects.filter(pk=article.pk).update(last_editor=editor)


@pytest.mark.parametrize("model", [Term, Article, Category, Series])
def test_changelist_query_count_is_constant(admin_client_, editor, model):
    """A changelist needs the same number of queries for 3 rows as for 30."""
    make_rows(3, editor=editor)
    few = changelist_queries(admin_client_, model)
    make_rows(27, editor=User.objects.create_user("inny", is_staff=True))
    assert model.objects.count() == 30
    assert changelist_queries(admin_client_, model) == few


def test_scheduled_term_shows_as_scheduled(admin_client_):
    """The changelist's visibility column tells scheduled terms from published ones."""
    make_future_term("Jutro")
    response = admin_client_.get(admin_url(Term, "changelist"))
    assert "zaplanowane" in response.text


@pytest.mark.parametrize("model", [Term, Article, Category, Series])
def test_editor_can_delete_content(editor_client, content, model):
    """An editor deletes any content row, links to other content included (no hidden
    permission on the M2M tables blocks it)."""
    obj = {Term: content.term, Article: content.article, Category: content.category}.get(
        model, content.series
    )
    url = admin_url(model, "delete", obj.pk)
    assert editor_client.get(url).status_code == 200
    response = editor_client.post(url, {"post": "yes"})
    assert response.status_code == 302
    assert not model.objects.filter(pk=obj.pk).exists()


def test_term_form_rejects_a_relation_to_itself():
    """A term cannot be related to itself: the form names the problem instead of saving a
    link that export → import would refuse."""
    from glossary.forms import TermAdminForm

    term = make_term("Łańcuch narzędzi")
    data = {
        "name": term.name,
        "slug": term.slug,
        "short_definition": term.short_definition,
        "body": "",
        "synonyms": "",
        "related": [term.pk],
        "status": "published",
        "published_at": "",
    }
    form = TermAdminForm(data=data, instance=term)
    assert not form.is_valid()
    assert form.errors.as_data()["related"][0].code == "self_related"
