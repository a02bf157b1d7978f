"""Public reader pages. Paths are Polish because readers see them; names are what code uses."""

from django.contrib.sitemaps.views import sitemap
from django.urls import path

from . import views
from .feeds import ArticleFeed
from .sitemaps import SITEMAPS

app_name = "glossary"
urlpatterns = [
    path("", views.HomeView.as_view(), name="home"),
    path("slownik/", views.IndexView.as_view(), name="index"),
    path("slownik/<slug:slug>/", views.term_view, name="term"),
    path("artykuly/", views.ArticleListView.as_view(), name="articles"),
    # "atom.xml" cannot collide with an article: slugs have no dots.
    path("artykuly/atom.xml", ArticleFeed(), name="feed"),
    path("artykuly/<slug:slug>/", views.article_view, name="article"),
    path("szukaj/", views.search_view, name="search"),
    path("sitemap.xml", sitemap, {"sitemaps": SITEMAPS}, name="sitemap"),
]
