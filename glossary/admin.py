"""The editors' admin ("Słownik — redakcja").

Declarative on purpose: what each list shows, filters and searches is in class attributes;
input adaptation lives in `glossary/forms.py`, bulk writes in `glossary/services.py`.
Editors belong to the "Editors" group (migration 0002). They hold `auth.view_user` only so
the article author autocomplete works, so the user admin below keeps the account pages
themselves for people who may change accounts.
"""

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.models import User
from django.db.models import Case, Count, IntegerField, Q, When

from . import search, services
from .forms import ArticleAdminForm, CategoryAdminForm, SeriesAdminForm, TermAdminForm
from .models import Article, Category, Series, Status, Term
from .polish import fold

admin.site.site_header = "Słownik — redakcja"
admin.site.site_title = "Słownik — redakcja"
admin.site.index_title = "Treści słownika"

HISTORY_FIELDS = ("created_at", "updated_at", "last_editor")


class VisibilityFilter(admin.SimpleListFilter):
    """What readers see now, built on the QuerySet's one visibility rule."""

    title = "widoczność"
    parameter_name = "widocznosc"

    def lookups(self, request, model_admin):
        return [
            ("published", "opublikowane"),
            ("scheduled", "zaplanowane"),
            ("draft", "szkice"),
        ]

    def queryset(self, request, queryset):
        match self.value():
            case "published":
                return queryset.published()
            case "scheduled":  # published status, but not visible yet
                return queryset.drafts().filter(status=Status.PUBLISHED)
            case "draft":
                return queryset.filter(status=Status.DRAFT)
        return queryset


class PublishableAdmin(admin.ModelAdmin):
    """Shared behaviour of terms and articles: visibility, bulk status changes, last editor."""

    actions = ["publish_selected", "unpublish_selected"]
    readonly_fields = HISTORY_FIELDS
    view_on_site = True  # the public page shows drafts to staff

    def get_search_results(self, request, queryset, search_term):
        # Django's lookups see the raw text and JSON-encoded (\\u-escaped) synonyms, so also
        # match the folded `search_text`: "lancuch" and "łańcuch" both find "Łańcuch", and
        # synonyms with Polish letters are found on SQLite too. This is the hook where the
        # Polish search engine (glossary.search) will plug in.
        results, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        words = fold(search_term).split()
        if words:
            results |= queryset.filter(*[Q(search_text__contains=word) for word in words])
        return results, may_have_duplicates

    @admin.display(description="widoczność")
    def visibility(self, obj):
        if obj.is_public:
            return "opublikowane"
        if obj.status == Status.PUBLISHED:
            return "zaplanowane"
        return "szkic"

    def save_model(self, request, obj, form, change):
        obj.last_editor = request.user
        super().save_model(request, obj, form, change)

    @admin.action(description="Opublikuj zaznaczone", permissions=["change"])
    def publish_selected(self, request, queryset):
        outcome = services.publish_entries(entries=queryset, editor=request.user)
        for entry, problems in outcome.skipped:
            self.message_user(
                request, f"Nie opublikowano „{entry}”: {' '.join(problems)}", messages.ERROR
            )
        if outcome.changed:
            self.message_user(request, f"Opublikowano: {len(outcome.changed)}.", messages.SUCCESS)
        if outcome.unchanged:
            self.message_user(
                request, f"Już opublikowane, bez zmian: {len(outcome.unchanged)}.", messages.INFO
            )

    @admin.action(description="Cofnij do szkicu", permissions=["change"])
    def unpublish_selected(self, request, queryset):
        outcome = services.unpublish_entries(entries=queryset, editor=request.user)
        if outcome.changed:
            self.message_user(
                request, f"Cofnięto do szkicu: {len(outcome.changed)}.", messages.SUCCESS
            )
        if outcome.unchanged:
            self.message_user(
                request, f"Już szkice, bez zmian: {len(outcome.unchanged)}.", messages.INFO
            )


@admin.register(Term)
class TermAdmin(PublishableAdmin):
    form = TermAdminForm
    list_display = (
        "name",
        "slug",
        "status",
        "visibility",
        "index_letter",
        "updated_at",
        "last_editor",
    )
    list_select_related = ("last_editor",)
    list_filter = ("status", VisibilityFilter, "categories", "updated_at")
    search_fields = ("name", "slug", "synonyms", "short_definition")
    date_hierarchy = "updated_at"

    def get_search_results(self, request, queryset, search_term):
        # Add the site's search engine (inflection, typos, synonyms), drafts included.
        results, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        if search_term.strip():
            results |= search.matching_terms(queryset=queryset, query=search_term)
            if _is_autocomplete(request):
                # An editor typing "mcp" into "related terms" wants MCP itself first, not the
                # alphabetically earlier terms whose definitions mention it.
                folded = fold(search_term)
                results = results.annotate(
                    _closeness=Case(
                        When(Q(name_folded=folded) | Q(slug=search_term.strip().lower()), then=0),
                        When(name_folded__startswith=folded, then=1),
                        default=2,
                        output_field=IntegerField(),
                    )
                ).order_by("_closeness", "sort_key", "id")
        return results, may_have_duplicates

    @admin.display(description="Litera", ordering="sort_key")
    def index_letter(self, obj):
        return obj.letter

    prepopulated_fields = {"slug": ("name",)}
    autocomplete_fields = ("categories", "related")
    fieldsets = (
        (None, {"fields": ("name", "slug", "short_definition", "body", "synonyms")}),
        ("Powiązania", {"fields": ("categories", "related")}),
        ("Publikacja", {"fields": ("status", "published_at")}),
        ("Historia", {"fields": HISTORY_FIELDS, "classes": ("collapse",)}),
    )


@admin.register(Article)
class ArticleAdmin(PublishableAdmin):
    form = ArticleAdminForm
    list_display = (
        "title",
        "slug",
        "status",
        "visibility",
        "series",
        "series_order",
        "author",
        "published_at",
        "updated_at",
        "last_editor",
    )
    list_select_related = ("author", "series", "last_editor")
    list_filter = ("status", VisibilityFilter, "series", "updated_at")
    search_fields = ("title", "slug", "lead")
    date_hierarchy = "published_at"
    prepopulated_fields = {"slug": ("title",)}
    autocomplete_fields = ("terms", "author", "series")
    fieldsets = (
        (None, {"fields": ("title", "slug", "lead", "body")}),
        ("Powiązania", {"fields": ("terms", "series", "series_order")}),
        ("Publikacja", {"fields": ("status", "published_at", "author")}),
        ("Historia", {"fields": HISTORY_FIELDS, "classes": ("collapse",)}),
    )

    def get_changeform_initial_data(self, request):
        return {"author": request.user.pk, **super().get_changeform_initial_data(request)}

    def save_model(self, request, obj, form, change):
        if not change and obj.author_id is None:
            obj.author = request.user
        super().save_model(request, obj, form, change)


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
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
class SeriesAdmin(admin.ModelAdmin):
    form = SeriesAdminForm
    list_display = ("name", "slug", "article_count")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(article_count=Count("articles"))

    @admin.display(description="artykułów", ordering="article_count")
    def article_count(self, obj):
        return obj.article_count


def _is_autocomplete(request) -> bool:
    match = getattr(request, "resolver_match", None)
    return match is not None and match.url_name == "autocomplete"


admin.site.unregister(User)


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    """Accounts: viewing them in the admin takes the right to change them; `view_user` alone
    (the Editors group) only feeds the author autocomplete, which lists active staff."""

    def has_view_permission(self, request, obj=None):
        if _is_autocomplete(request):
            return super().has_view_permission(request, obj)
        return self.has_change_permission(request, obj)

    def get_search_results(self, request, queryset, search_term):
        if _is_autocomplete(request):
            queryset = queryset.filter(is_active=True, is_staff=True)
        return super().get_search_results(request, queryset, search_term)
