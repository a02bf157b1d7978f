"""Tiny builders for test data (plain functions: no factory library needed for three models)."""

import itertools
from datetime import timedelta

from django.utils import timezone

from glossary.models import Article, Category, Status, Term

_seq = itertools.count(1)


def make_term(name=None, *, status=Status.PUBLISHED, short_definition="Krótka definicja.", **kw):
    name = name or f"Pojęcie {next(_seq)}"
    return Term.objects.create(name=name, status=status, short_definition=short_definition, **kw)


def make_draft_term(name=None, **kw):
    return make_term(name, status=Status.DRAFT, **kw)


def make_future_term(name=None, **kw):
    return make_term(name, published_at=timezone.now() + timedelta(days=7), **kw)


def make_article(title=None, *, status=Status.PUBLISHED, terms=(), **kw):
    title = title or f"Artykuł {next(_seq)}"
    article = Article.objects.create(title=title, status=status, **kw)
    if terms:
        article.terms.set(terms)
    return article


def make_category(name=None, **kw):
    return Category.objects.create(name=name or f"Kategoria {next(_seq)}", **kw)
