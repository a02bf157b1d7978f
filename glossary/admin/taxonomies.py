"""The admin of categories and series."""

from django.contrib import admin
from django.db.models import Count

from ..forms import CategoryAdminForm, SeriesAdminForm
from ..models import Category, Series
from .messages import PolishMessagesMixin


@admin.register(Category)
class CategoryAdmin(PolishMessagesMixin, admin.ModelAdmin):
    form = CategoryAdminForm
    list_display = ("name", "slug", "term_count")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(term_count=Count("terms"))

    @admin.display(description="pojęć", ordering="term_count")
    def term_count(self, obj):
        return obj.term_count


@admin.register(Series)
class SeriesAdmin(PolishMessagesMixin, admin.ModelAdmin):
    form = SeriesAdminForm
    list_display = ("name", "slug", "article_count")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(article_count=Count("articles"))

    @admin.display(description="artykułów", ordering="article_count")
    def article_count(self, obj):
        return obj.article_count


# --- readable diffs of revisions ---------------------------------------------------------------
