"""Atom feed of the newest published articles (starts from `selectors.article_list()`).

An article's lead is plain text, so its `<summary>` says `type="text"` (RFC 4287 §3.1.1):
Django's Atom generator labels every summary `type="html"`, which tells feed readers to
render the (XML-unescaped) lead as markup — a lead `<img src=x onerror=…>` would run there.
Titles and author names are Atom text constructs already.

Feed readers poll: `article_feed` answers their If-None-Match / If-Modified-Since with 304.
"""

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils.cache import get_conditional_response, set_response_etag
from django.utils.feedgenerator import Atom1Feed
from django.utils.http import parse_http_date_safe

from . import selectors
from .site import site_url

FEED_SIZE = 20


class TextSummaryAtomFeed(Atom1Feed):
    """Atom 1.0 whose entry summaries are text constructs, not HTML."""

    def add_item_elements(self, handler, item):
        super().add_item_elements(handler, {**item, "description": None})
        if item["description"] is not None:
            handler.addQuickElement("summary", item["description"], {"type": "text"})


class ArticleFeed(Feed):
    feed_type = TextSummaryAtomFeed
    language = "pl"

    def title(self):
        return f"{settings.SITE_NAME} — artykuły"

    def subtitle(self):
        return "Najnowsze artykuły o pojęciach technicznych."

    def author_name(self):
        return settings.SITE_NAME

    # Absolute links on the canonical address (the framework leaves absolute URLs alone), not
    # on the Host header of whoever fetched the feed.
    def link(self):
        return site_url() + reverse("glossary:articles")

    def feed_url(self):
        return site_url() + reverse("glossary:feed")

    def items(self):
        return selectors.latest_articles(limit=FEED_SIZE)

    def item_title(self, item):
        return item.title

    def item_description(self, item):
        return item.lead

    def item_link(self, item):
        return site_url() + item.get_absolute_url()

    def item_pubdate(self, item):
        return item.published_at

    def item_updateddate(self, item):
        return item.updated_at

    def item_author_name(self, item):
        if item.author is None:
            return None
        return item.author.get_full_name() or item.author.get_username()


_FEED = ArticleFeed()


def article_feed(request):
    """The Atom feed with conditional GETs: an ETag (a hash of the feed, as the pages have)
    and the Last-Modified Django's `Feed` sets (the newest entry's update, as WordPress's
    feeds do), so a reader polling with either validator gets 304 while nothing changed."""
    response = _FEED(request)
    set_response_etag(response)
    return get_conditional_response(
        request,
        etag=response["ETag"],
        last_modified=parse_http_date_safe(response.get("Last-Modified", "")),
        response=response,
    )
