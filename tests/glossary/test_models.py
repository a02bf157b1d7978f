"""Content model rules: slugs, constraints, derived fields, visibility."""

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify
from hypothesis import given, settings
from hypothesis import strategies as st

from glossary.models import Article, Series, Status, Term
from glossary.polish import _FOLD, index_letter, polish_slugify, sort_key
from tests.factories import make_article, make_draft_term, make_future_term, make_term

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("OAuth dla agentów", "oauth-dla-agentow"),
        ("Łańcuch", "lancuch"),
        ("Źdźbło żółci", "zdzblo-zolci"),
        ("JSON-RPC", "json-rpc"),
        ("Streamable HTTP", "streamable-http"),
        ("  Agent   readiness ", "agent-readiness"),
    ],
)
def test_slugs_fold_polish_letters(name, slug):
    """A slug keeps every Polish letter as its ASCII base letter, ł included."""
    assert polish_slugify(name) == slug


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="abcxyz019-_ ĄąŁłÓóŻżAZ.\u0301\t", max_size=16))
def test_a_slug_is_its_own_slug_and_the_shortcut_changes_no_answer(text):
    """Text that is already a slug comes back unchanged without the full path, and any text
    gets from `polish_slugify` exactly what folding and Django's slugify give."""
    assert polish_slugify(text) == slugify(text.translate(_FOLD))
    assert polish_slugify(polish_slugify(text)) == polish_slugify(text)


@pytest.mark.parametrize("slug", ["json-rpc", "mcp", "oauth-dla-agentow", "http2-push"])
def test_a_slug_takes_the_shortcut(slug):
    """A slug an agent sends comes back as the very string it sent, not as slugify's equal copy:
    the full path (NFKD, two substitutions, ~9 µs) is not run for it (~0.7 µs)."""
    assert polish_slugify(slug) is slug


def test_term_slug_is_generated_from_name():
    """A term saved without a slug gets the Polish-aware slug of its name."""
    assert make_term("Łańcuch narzędzi").slug == "lancuch-narzedzi"


def test_polish_alphabetical_order():
    """Sort keys follow the Polish alphabet (A Ą B C Ć … Ł … Ś … Ź Ż), not byte order."""
    names = [
        "Żaba",
        "Zebra",
        "Łódź",
        "Lampa",
        "Ćma",
        "Cebula",
        "Ąb",
        "Azot",
        "Źrebię",
        "Śruba",
        "Sos",
    ]
    expected = [
        "Azot",
        "Ąb",
        "Cebula",
        "Ćma",
        "Lampa",
        "Łódź",
        "Sos",
        "Śruba",
        "Zebra",
        "Źrebię",
        "Żaba",
    ]
    assert sorted(names, key=sort_key) == expected


@pytest.mark.parametrize(
    ("name", "letter"),
    [("Łańcuch", "Ł"), ("agent", "A"), ("Ósemka", "O"), ("2FA", "#"), ("Émile", "E")],
)
def test_index_letter(name, letter):
    """Each name is filed under its Polish first letter; digits and symbols under '#'."""
    assert index_letter(name) == letter


def test_term_name_is_unique_case_insensitively():
    """Two terms cannot differ only by letter case: the database refuses it."""
    make_term("MCP")
    with pytest.raises(IntegrityError), transaction.atomic():
        make_term("mcp", slug="mcp-2")


def test_published_term_needs_short_definition_in_database():
    """The database itself refuses a published term without a short definition."""
    with pytest.raises(IntegrityError), transaction.atomic():
        Term.objects.create(name="Pusty", status=Status.PUBLISHED, short_definition="")


def test_published_term_needs_short_definition_in_validation():
    """Form validation reports the missing definition with a machine-readable code."""
    term = Term(name="Pusty", slug="pusty", status=Status.PUBLISHED)
    with pytest.raises(ValidationError) as err:
        term.full_clean()
    assert err.value.error_dict["short_definition"][0].code == "definition_required"


def test_short_definition_is_limited_to_300_characters():
    """A short definition over 300 characters fails validation."""
    term = Term(name="Długi", slug="dlugi", short_definition="x" * 301)
    with pytest.raises(ValidationError) as err:
        term.full_clean()
    assert "short_definition" in err.value.error_dict


def test_publishing_stamps_published_at():
    """Publishing without a date publishes now."""
    term = make_draft_term("Szkic")
    assert term.published_at is None
    term.status = Status.PUBLISHED
    term.save()
    assert term.published_at is not None and term.published_at <= timezone.now()


def test_published_filters_drafts_and_future_entries():
    """`published()` is the one visibility rule: drafts and future-dated entries are excluded."""
    visible = make_term("Widoczne")
    make_draft_term("Szkic")
    make_future_term("Jutro")
    assert list(Term.objects.published()) == [visible]


def test_markdown_is_rendered_and_sanitized_on_save():
    """The body is rendered to HTML on save and hostile markup never survives."""
    term = make_term(
        "Bezpieczne", body="**gruby** <script>alert(1)</script> [x](javascript:alert(1))"
    )
    assert "<strong>gruby</strong>" in term.body_html
    assert "<script" not in term.body_html and 'href="javascript:' not in term.body_html


def test_synonyms_are_trimmed_and_deduplicated():
    """Synonyms are stored as distinct trimmed strings."""
    term = make_term(
        "SSE", synonyms=[" Server-Sent Events ", "server-sent events", "", "SSE stream"]
    )
    assert term.synonyms == ["Server-Sent Events", "SSE stream"]


def test_related_terms_are_symmetrical():
    """Relating A to B makes B related to A."""
    a, b = make_term("A1"), make_term("B1")
    a.related.add(b)
    assert list(b.related.all()) == [a]


def test_series_requires_order():
    """An article in a series must have a position in it (database constraint)."""
    series = Series.objects.create(name="Seria", slug="seria")
    with pytest.raises(IntegrityError), transaction.atomic():
        Article.objects.create(title="Bez numeru", series=series)


def test_future_article_is_not_published():
    """An article scheduled for tomorrow is not visible yet."""
    make_article("Jutro", published_at=timezone.now() + timedelta(days=1))
    assert not Article.objects.published().exists()


def test_entry_path_is_the_routes_own_address():
    """`entry_path`, the one builder of an entry's address, gives exactly what reversing the
    entry's route gives, for every kind and for the Markdown alternates, under another script
    prefix too (a site mounted below /), and `get_absolute_url` is it."""
    from django.urls import reverse, set_script_prefix

    from glossary.models import MARKDOWN_ROUTES, ROUTES, Term, entry_path

    def expected():
        pages = {(kind, False): reverse(r, kwargs={"slug": "a-b_1"}) for kind, r in ROUTES.items()}
        pages.update(
            {(k, True): reverse(r, kwargs={"slug": "a-b_1"}) for k, r in MARKDOWN_ROUTES.items()}
        )
        return pages

    for (kind, markdown), path in expected().items():
        assert entry_path(kind, "a-b_1", markdown=markdown) == path
    assert Term(slug="a-b_1").get_absolute_url() == reverse("glossary:term", args=["a-b_1"])
    set_script_prefix("/pod/")
    try:
        for (kind, markdown), path in expected().items():
            assert path.startswith("/pod/")
            assert entry_path(kind, "a-b_1", markdown=markdown) == path
    finally:
        set_script_prefix("/")
