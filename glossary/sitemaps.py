"""sitemap.xml: published terms and articles only, with absolute URLs on the site's canonical
address (glossary/site.py: django.contrib.sites' row, with the scheme its rule gives), never on
the Host header of whoever fetched it.
"""

from urllib.parse import urlsplit

from django.contrib.sitemaps import Sitemap
from django.urls import reverse

from . import selectors
from .models import Article, Term
from .site import site_url


class _SiteUrlSitemap(Sitemap):
    def get_protocol(self, protocol=None):
        return urlsplit(site_url()).scheme

    def get_domain(self, site=None):
        return urlsplit(site_url()).netloc


class PagesSitemap(_SiteUrlSitemap):
    changefreq = "daily"

    def items(self):
        return ["glossary:home", "glossary:index", "glossary:articles"]

    def location(self, item):
        return reverse(item)


class TermSitemap(_SiteUrlSitemap):
    changefreq = "weekly"

    def items(self):
        return Term.objects.published().order_by("sort_key", "id").only("slug", "updated_at")

    def lastmod(self, item):
        return item.updated_at


class ArticleSitemap(_SiteUrlSitemap):
    changefreq = "monthly"

    def items(self):
        return (
            Article.objects.published().order_by("-published_at", "-id").only("slug", "updated_at")
        )

    def lastmod(self, item):
        return item.updated_at


class CategorySitemap(_SiteUrlSitemap):
    changefreq = "weekly"

    def items(self):
        return selectors.categories_with_terms().only("slug")


class SeriesSitemap(_SiteUrlSitemap):
    changefreq = "monthly"

    def items(self):
        return selectors.series_with_articles().only("slug")


SITEMAPS = {
    "pages": PagesSitemap,
    "terms": TermSitemap,
    "articles": ArticleSitemap,
    "categories": CategorySitemap,
    "series": SeriesSitemap,
}
