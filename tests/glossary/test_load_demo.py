"""`manage.py load_demo`: demo content through the import services, idempotent."""

import hashlib
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from glossary.importing import export_terms
from glossary.models import Article, Category, Series, Status, Term
from tests.factories import make_term
from tests.glossary.demo import REQUIRED_TERM_SLUGS

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent / "data" / "demo"
DEMO = Path(__file__).resolve().parent.parent.parent / "glossary" / "demo"


def load_demo(*args, directory=FIXTURE):
    out = StringIO()
    call_command("load_demo", "--directory", str(directory), *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def state():
    """Row counts and a checksum of every term, link, article and series value."""
    articles = [
        (a.slug, a.title, a.lead, a.body, a.status, a.series_id and a.series.name, a.series_order)
        for a in Article.objects.select_related("series").order_by("slug")
    ]
    article_terms = sorted(Article.terms.through.objects.values_list("article__slug", "term__slug"))
    content = json.dumps([export_terms(), articles, article_terms], ensure_ascii=False)
    counts = [m.objects.count() for m in (Term, Category, Article, Series)]
    counts += [Term.related.through.objects.count(), Term.categories.through.objects.count()]
    return counts, hashlib.sha256(content.encode()).hexdigest()


def test_load_demo_creates_terms_articles_and_series():
    """The demo loader imports terms, then articles with their series and term links."""
    load_demo()

    assert set(Term.objects.values_list("slug", flat=True)) == {
        "protokol-testowy",
        "transport-testowy",
        "szkic-testowy",
    }
    article = Article.objects.get(slug="seria-testowa-1")
    assert article.series.name == "Seria testowa"
    assert article.series.slug == "seria-testowa"
    assert article.is_public and article.body_html
    assert set(article.terms.values_list("slug", flat=True)) == {
        "protokol-testowy",
        "transport-testowy",
    }
    assert Article.objects.get(slug="samodzielny-artykul-testowy").status == Status.DRAFT


def test_running_load_demo_twice_changes_nothing():
    """A second run leaves the same rows: counts, content and update times unchanged."""
    load_demo()
    before = state()
    stamps = sorted(Term.objects.values_list("updated_at", flat=True)) + sorted(
        Article.objects.values_list("updated_at", flat=True)
    )

    output = load_demo()

    assert state() == before
    assert stamps == sorted(Term.objects.values_list("updated_at", flat=True)) + sorted(
        Article.objects.values_list("updated_at", flat=True)
    )
    assert "bez zmian 3" in output and "bez zmian 2" in output


def test_if_empty_skips_a_glossary_that_has_terms():
    """--if-empty loads nothing once any term exists (what `make run` relies on)."""
    make_term("Własne pojęcie")

    output = load_demo("--if-empty")

    assert "pominięte" in output
    assert Term.objects.count() == 1
    assert not Article.objects.exists()


def test_if_empty_loads_into_an_empty_glossary():
    """--if-empty on an empty database loads the demo."""
    load_demo("--if-empty")
    assert Term.objects.count() == 3


def test_a_bad_article_rolls_back_the_terms_too(tmp_path):
    """Terms and articles load in one transaction: an invalid article file writes nothing."""
    (tmp_path / "terms.json").write_text((FIXTURE / "terms.json").read_text())
    (tmp_path / "articles.json").write_text(
        json.dumps([{"title": "Zły", "slug": "zly", "terms": ["nie-ma"], "series": "S"}])
    )

    with pytest.raises(CommandError) as exc:
        load_demo(directory=tmp_path)

    message = str(exc.value)
    assert message.startswith("articles.json:")
    assert "pole „terms”: Pojęcie „nie-ma” nie istnieje" in message
    assert "pole „series_order”" in message
    assert not Term.objects.exists()


@pytest.mark.skipif(not (DEMO / "terms.json").exists(), reason="demo content not written yet")
def test_real_demo_content_loads_with_the_required_terms():
    """The shipped demo loads cleanly and has the terms the site and MCP docs link to."""
    load_demo(directory=DEMO)
    slugs = set(Term.objects.published().values_list("slug", flat=True))
    assert slugs >= REQUIRED_TERM_SLUGS
    # Every term's English name and definition arrive and are searched.
    shipped = json.loads((DEMO / "terms.json").read_text(encoding="utf-8"))
    english = {t["slug"]: (t["english_name"], t["english_definition"]) for t in shipped}
    assert (
        dict(
            (slug, (name, text))
            for slug, name, text in Term.objects.values_list(
                "slug", "english_name", "english_definition"
            )
        )
        == english
    )
    assert "| ai agent |" in Term.objects.get(slug="agent").search_names

    before = state()
    load_demo(directory=DEMO)
    assert state() == before
