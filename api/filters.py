"""Filter backends: each applies a few validated query parameters (`view.params`, checked by
the collection's serializer in api/params.py) to a QuerySet that already holds only what the
user may see (`view.visible()`: `published()` for readers). `view` is the read's `Listing`
(api/listing.py), never a view instance: a compiled read builds its SQL without a request.
Relations are filtered through subqueries that start from what the user may see as well,
so `?related=<draft id>` or `?term=<draft id>` tells a reader nothing about the draft.
"""

from django.db.models import Case, IntegerField, OuterRef, Q, Subquery, Value, When
from rest_framework.filters import BaseFilterBackend

from glossary import search
from glossary.models import Article, Category, Term

# orderby value -> model field, per model (`title` sorts terms in Polish alphabetical order).
ORDER_FIELDS = {
    Term: {"title": "sort_key", "date": "published_at", "modified": "updated_at", "id": "id",
           "slug": "slug"},
    Article: {"title": "title", "date": "published_at", "modified": "updated_at", "id": "id",
              "slug": "slug"},
    "taxonomy": {"name": "name", "id": "id", "slug": "slug", "count": "entry_count"},
}  # fmt: skip


class SubqueryCount(Subquery):
    """How many rows a correlated subquery yields (no GROUP BY in the outer query)."""

    template = "(SELECT COUNT(*) FROM (%(subquery)s) _count)"
    output_field = IntegerField()


class IdentityFilter(BaseFilterBackend):
    """`include`, `exclude`, `slug`."""

    def filter_queryset(self, request, queryset, view):
        params = view.params
        if params.get("include"):
            queryset = queryset.filter(pk__in=params["include"])
        if params.get("exclude"):
            queryset = queryset.exclude(pk__in=params["exclude"])
        if params.get("slug"):
            queryset = queryset.filter(slug__in=params["slug"])
        return queryset


class DateFilter(BaseFilterBackend):
    """`after`/`before` (publication) and `modified_after`/`modified_before`."""

    LOOKUPS = {
        "after": "published_at__gt",
        "before": "published_at__lt",
        "modified_after": "updated_at__gt",
        "modified_before": "updated_at__lt",
    }

    def filter_queryset(self, request, queryset, view):
        conditions = {
            lookup: view.params[name]
            for name, lookup in self.LOOKUPS.items()
            if name in view.params
        }
        return queryset.filter(**conditions) if conditions else queryset


class TermRelationFilter(BaseFilterBackend):
    """`categories`, `categories_exclude`, `related` (terms linked to a term), `article`."""

    def filter_queryset(self, request, queryset, view):
        params = view.params
        categories = Term.categories.through.objects
        if params.get("categories"):
            queryset = queryset.filter(
                pk__in=categories.filter(category_id__in=params["categories"]).values("term_id")
            )
        if params.get("categories_exclude"):
            queryset = queryset.exclude(
                pk__in=categories.filter(category_id__in=params["categories_exclude"]).values(
                    "term_id"
                )
            )
        if "related" in params:
            queryset = queryset.filter(
                pk__in=Term.related.through.objects.filter(
                    from_term__in=view.visible(Term).filter(pk=params["related"])
                ).values("to_term_id")
            )
        if "article" in params:
            queryset = queryset.filter(
                pk__in=Article.terms.through.objects.filter(
                    article__in=view.visible(Article).filter(pk=params["article"])
                ).values("term_id")
            )
        return queryset


class ArticleRelationFilter(BaseFilterBackend):
    """`terms`, `terms_exclude` (articles using glossary terms) and `series`."""

    def filter_queryset(self, request, queryset, view):
        params = view.params
        uses = Article.terms.through.objects
        if params.get("terms"):
            queryset = queryset.filter(
                pk__in=uses.filter(
                    term__in=view.visible(Term).filter(pk__in=params["terms"])
                ).values("article_id")
            )
        if params.get("terms_exclude"):
            queryset = queryset.exclude(
                pk__in=uses.filter(term_id__in=params["terms_exclude"]).values("article_id")
            )
        if params.get("series"):
            queryset = queryset.filter(series_id__in=params["series"])
        return queryset


class TaxonomyFilter(BaseFilterBackend):
    """Categories and series: `count` of published entries, `hide_empty`, `term`/`article`,
    and `search` in names, slugs and descriptions."""

    def filter_queryset(self, request, queryset, view):
        params = view.params
        if queryset.model is Category:
            entries = Term.objects.published(now=view.now).filter(categories=OuterRef("pk"))
            owner = ("term", Term, "terms")
        else:
            entries = Article.objects.published(now=view.now).filter(series=OuterRef("pk"))
            owner = ("article", Article, "articles")
        queryset = queryset.annotate(entry_count=SubqueryCount(entries.values("pk")))
        if params.get("hide_empty"):
            queryset = queryset.filter(entry_count__gt=0)
        name, model, related = owner
        if name in params:
            queryset = queryset.filter(
                **{f"{related}__in": view.visible(model).filter(pk=params[name])}
            )
        if params.get("search"):
            text = params["search"]
            queryset = queryset.filter(
                Q(name__icontains=text) | Q(slug__icontains=text) | Q(description__icontains=text)
            )
        return queryset


class EngineSearchFilter(BaseFilterBackend):
    """`search` on terms and articles: the site's one search engine (glossary.search) ranks
    published entries; the read runs it first (`queries.with_ranking`) and its best 100 ids
    arrive here as `_ranked`, the candidates, ranked by `_rank` for `orderby=relevance`. Editors
    looking at drafts get the admin's match instead (no ranking)."""

    def filter_queryset(self, request, queryset, view):
        text = view.params.get("search")
        if not text:
            return queryset
        if "_ranked" not in view.params:
            if queryset.model is Term:
                return search.matching_terms(queryset=queryset, query=text)
            return queryset.filter(search_text__contains=search.normalize_query(text))
        ranked = view.params["_ranked"]
        return queryset.filter(pk__in=ranked).annotate(
            _rank=Case(
                *[When(pk=pk, then=Value(rank)) for rank, pk in enumerate(ranked)],
                default=Value(len(ranked)),
                output_field=IntegerField(),
            )
        )


class WordPressOrdering(BaseFilterBackend):
    """`orderby` (incl. `include`, `include_slugs`, `relevance`) and `order`."""

    def filter_queryset(self, request, queryset, view):
        params = view.params
        if "orderby" not in params:  # an object route
            return queryset
        orderby, descending = params["orderby"], params["order"] == "desc"
        if orderby == "relevance":
            ranked = "_rank" in queryset.query.annotations  # drafts are matched, not ranked
            return queryset.order_by("_rank", "id") if ranked else queryset.order_by("id")
        if orderby in ("include", "include_slugs"):
            values = params["include"] if orderby == "include" else params["slug"]
            field = "pk" if orderby == "include" else "slug"
            position = Case(
                *[When(**{field: value}, then=Value(i)) for i, value in enumerate(values)],
                default=Value(len(values)),
                output_field=IntegerField(),
            )
            return queryset.annotate(_position=position).order_by("_position", "id")
        fields = ORDER_FIELDS.get(queryset.model) or ORDER_FIELDS["taxonomy"]
        field = fields[orderby]
        prefix = "-" if descending else ""
        return queryset.order_by(f"{prefix}{field}", f"{prefix}id")
