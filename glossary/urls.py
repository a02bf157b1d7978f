"""Public reader pages. Paths are Polish because readers see them; names are what code uses."""

from django.contrib.sitemaps.views import sitemap
from django.urls import path

from . import views
from .eventstream import entry_events
from .feeds import article_feed
from .sitemaps import SITEMAPS

app_name = "glossary"
urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("slownik/", views.IndexView.as_view(), name="index"),
    # "kategoria" is a path segment of its own: a term slugged "kategoria" keeps its page.
    path("slownik/kategoria/<slug:slug>/", views.category_view, name="category"),
    path("slownik/<slug:slug>/", views.term_view, name="term"),
    # Markdown alternates for agents (glossary/llms.py): slugs have no dots, so no clash.
    path("slownik/<slug:slug>.md", views.term_markdown, name="term-markdown"),
    path("slownik/<slug:slug>/index.html.md", views.markdown_index_html, {"route": "term"}),
    # Live updates for an open page (server-sent events; glossary/eventstream.py).
    path("slownik/<slug:slug>/zdarzenia/", entry_events, {"kind": "term"}, name="term-events"),
    path("artykuly/", views.ArticleListView.as_view(), name="articles"),
    path("artykuly/seria/<slug:slug>/", views.series_view, name="series"),
    # "atom.xml" cannot collide with an article: slugs have no dots.
    path("artykuly/atom.xml", article_feed, name="feed"),
    path("artykuly/<slug:slug>/", views.article_view, name="article"),
    path("artykuly/<slug:slug>.md", views.article_markdown, name="article-markdown"),
    path("artykuly/<slug:slug>/index.html.md", views.markdown_index_html, {"route": "article"}),
    path(
        "artykuly/<slug:slug>/zdarzenia/",
        entry_events,
        {"kind": "article"},
        name="article-events",
    ),
    path("szukaj/", views.search_view, name="search"),
    path("szukaj/podpowiedzi/", views.search_suggestions, name="search_suggest"),
    path("sitemap.xml", sitemap, {"sitemaps": SITEMAPS}, name="sitemap"),
    path("robots.txt", views.robots_txt, name="robots"),
    path("llms.txt", views.llms_txt, name="llms"),
    path("llms-full.txt", views.llms_full_txt, name="llms-full"),
    path("favicon.ico", views.favicon, name="favicon"),
    path("site.webmanifest", views.web_manifest, name="webmanifest"),
]
