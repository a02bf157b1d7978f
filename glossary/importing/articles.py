"""Importing articles (editorial files of dozens of rows): every row checked first, then saved
row by row through `services.save_article` (a revision each, linked)."""

from collections import defaultdict
from collections.abc import Iterable

from django.db import transaction

from ..importexport import ImportErrors, SourceRow
from ..models import SERIES_ORDER_REQUIRED, Article, Series, Term
from ..services import save_article
from .check import _ARTICLE_KEYS, _ARTICLE_SLUG_MAX, _TITLE_MAX, _RowCheck
from .plan import _unique_slug
from .report import ArticleImportReport


def _check_article_row(check: _RowCheck, term_ids, seen) -> dict | None:
    if not check.is_object(_ARTICLE_KEYS):
        return None
    before = len(check.errors)
    title = check.required_text("title", "Tytuł", _TITLE_MAX, "Tytuł jest wymagany.")
    slug = check.slug(max_length=_ARTICLE_SLUG_MAX)
    if slug:
        if slug in seen:
            message = f"Slug „{slug}” powtarza się (pierwszy raz: {seen[slug]})."
            check.error("slug", message, "duplicate_slug")
        seen.setdefault(slug, check.position)
    lead = check.text("lead")
    body = check.text("body", strip=False)
    status = check.status()
    terms = check.text_list("terms") or []
    for term_slug in terms:
        if term_slug not in term_ids:
            check.error("terms", f"Pojęcie „{term_slug}” nie istnieje.", "unknown_term")
    series = check.data.get("series")
    if series is not None and (not isinstance(series, str) or not series.strip()):
        check.error("series", "Oczekiwano nazwy serii albo null.", "invalid_type")
    order = check.data.get("series_order")
    if order is not None and (isinstance(order, bool) or not isinstance(order, int) or order < 1):
        message = "Oczekiwano dodatniej liczby całkowitej albo null."
        check.error("series_order", message, "invalid_type")
    if series and order is None:
        check.error("series_order", SERIES_ORDER_REQUIRED, "series_order_required")
    if len(check.errors) > before:
        return None
    return {
        "slug": slug,
        "title": title,
        "lead": lead,
        "body": body,
        "status": status,
        "terms": {term_ids[term_slug] for term_slug in terms},
        "series": series.strip() if series else None,
        "series_order": order,
    }


@transaction.atomic
def import_articles(rows: Iterable[SourceRow]) -> ArticleImportReport:
    """Upsert articles by slug, and their series by name, all or nothing.

    The terms an article names (by slug) must already exist; its term list replaces the
    current one. Rows that already match the database are not saved again, so loading the
    same file twice changes nothing, `updated_at` included. Sized for editorial files
    (dozens of articles): rows are saved one by one through `Article.save()`.
    """
    rows = list(rows)
    checks = [_RowCheck(row) for row in rows]
    term_ids = dict(Term.objects.values_list("slug", "id"))
    seen: dict[str, str] = {}
    parsed = [
        item for check in checks if (item := _check_article_row(check, term_ids, seen)) is not None
    ]
    if errors := [error for check in checks for error in check.errors]:
        raise ImportErrors(errors)

    report = ArticleImportReport()
    existing = Article.objects.in_bulk([item["slug"] for item in parsed], field_name="slug")
    current_terms: dict[int, set[int]] = defaultdict(set)
    for article_id, term_id in Article.terms.through.objects.filter(
        article_id__in=[article.pk for article in existing.values()]
    ).values_list("article_id", "term_id"):
        current_terms[article_id].add(term_id)
    series_by_name = {series.name: series for series in Series.objects.all()}
    series_slugs = {series.slug for series in series_by_name.values()}
    for item in parsed:
        series = None
        if item["series"]:
            series = series_by_name.get(item["series"])
            if series is None:
                slug = _unique_slug(item["series"], series_slugs)
                series = series_by_name[item["series"]] = Series.objects.create(
                    name=item["series"], slug=slug
                )
        values = {
            "title": item["title"],
            "lead": item["lead"],
            "body": item["body"],
            "status": item["status"],
            "series_id": series.pk if series else None,
            "series_order": item["series_order"],
        }
        article = existing.get(item["slug"])
        if (
            article is not None
            and all(getattr(article, key) == value for key, value in values.items())
            and current_terms[article.pk] == item["terms"]
        ):
            report.unchanged += 1
            continue
        if article is None:
            article = Article(slug=item["slug"])
            report.created += 1
        else:
            report.updated += 1
        for key, value in values.items():
            setattr(article, key, value)
        save_article(article, terms=item["terms"], comment="Import.")
    return report
