"""Atom feed of the newest published articles (starts from `selectors.article_list()`)."""

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from . import selectors
from .site import site_url

FEED_SIZE = 20


class ArticleFeed(Feed):
    feed_type = Atom1Feed
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
