"""schema.org JSON-LD for the reader pages: a term is a `DefinedTerm` in the glossary's
`DefinedTermSet`, an article an `Article` about the terms it uses. Built from the selectors'
details with absolute URLs on the canonical address (glossary/site.py); the template filter
`jsonld` (templatetags) writes it into the page safely."""

from django.conf import settings
from django.urls import reverse

from .models import entry_path
from .selectors import ArticleDetail, TermDetail
from .site import site_url


def _absolute(path: str) -> str:
    return site_url() + path


def term_jsonld(detail: TermDetail) -> dict:
    term = detail.term
    url = _absolute(term.get_absolute_url())
    index = _absolute(reverse("glossary:index"))
    data = {
        "@context": "https://schema.org",
        "@type": "DefinedTerm",
        "@id": url,
        "url": url,
        "name": term.name,
        "description": term.short_definition,
        "inLanguage": "pl",
        "inDefinedTermSet": {
            "@type": "DefinedTermSet",
            "@id": index,
            "url": index,
            "name": settings.SITE_NAME,
        },
    }
    if term.other_names:
        # Declined forms are kept for search and linking, not shown as other names.
        data["alternateName"] = term.other_names
    return data


def article_jsonld(detail: ArticleDetail) -> dict:
    article = detail.article
    url = _absolute(article.get_absolute_url())
    data = {
        "@context": "https://schema.org",
        "@type": "Article",
        "@id": url,
        "url": url,
        "mainEntityOfPage": url,
        "headline": article.title[:110],
        "description": article.lead,
        "inLanguage": "pl",
        "dateModified": article.updated_at,
        "publisher": {
            "@type": "Organization",
            "name": settings.SITE_NAME,
            "url": site_url(),
        },
        "about": [
            {
                "@type": "DefinedTerm",
                "name": link.title,
                "url": _absolute(entry_path("term", link.slug)),
            }
            for link in detail.terms
        ],
    }
    if article.published_at:
        data["datePublished"] = article.published_at
    if article.author_name:
        data["author"] = {"@type": "Person", "name": article.author_name}
    if article.series:
        data["isPartOf"] = {
            "@type": "CreativeWorkSeries",
            "name": article.series.name,
            "url": _absolute(article.series.get_absolute_url()),
        }
    return data
