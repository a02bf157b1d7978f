"""The admin of terms and articles: lists, filters, the live preview, history and restore."""

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import Case, IntegerField, Q, When
from django.http import Http404, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from reversion.models import Version

from .. import autolink, search, services
from ..forms import ArticleAdminForm, TermAdminForm
from ..markdown import render_markdown
from ..models import Article, Status, Term
from ..polish import fold
from .guards import CONFIRMED, EDITED_VERSION, HISTORY_FIELDS, confirmed_form, guarded_form
from .history import link_names, revision_diff
from .messages import PolishMessagesMixin, count_message
from .users import is_autocomplete


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


# What the admin says after each action, per model: Polish nouns have genders ("pojęcie
# zostało", "artykuł został", "kategoria została") and three plural forms (1 pojęcie,
# 2 pojęcia, 5 pojęć), which Django's generic "{name} „{obj}” został(a)(-ło) dodany(-na)"
# cannot express. English msgids, Polish in glossary/locale/pl/LC_MESSAGES/django.po.


class PublishableAdmin(PolishMessagesMixin, admin.ModelAdmin):
    """Shared behaviour of terms and articles: visibility, bulk status changes, last editor,
    writes through services, the live preview and the revisions."""

    actions = ["publish_selected", "unpublish_selected"]
    change_list_template = "admin/glossary/change_list.html"
    readonly_fields = HISTORY_FIELDS
    view_on_site = True  # the public page shows drafts to staff
    # Bodies the preview renders at most (a long article is ~60 KB of Markdown).
    PREVIEW_MAX_CHARS = 200_000

    class Media:
        css = {"all": ("css/admin-preview.css",)}
        js = ("js/admin-preview.js",)

    def _url_name(self, view: str, *, admin_ns: bool = True) -> str:
        name = f"{self.model._meta.app_label}_{self.model._meta.model_name}_{view}"
        return f"{self.admin_site.name}:{name}" if admin_ns else name

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is not None:
            kwargs.setdefault("form", guarded_form(self.form))
        form = super().get_form(request, obj, change, **kwargs)
        body = form.base_fields.get("body")
        if body is not None:
            body.widget.attrs.update(
                {
                    "data-preview-url": reverse(self._url_name("preview")),
                    "data-preview-id": "" if obj is None else str(obj.pk),
                    "rows": 24,
                }
            )
        return form

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None:
            return fieldsets
        # The guard's hidden field (a row of hidden fields is hidden in the admin's layout).
        (name, options), *rest = fieldsets
        return ((name, {**options, "fields": (*options["fields"], EDITED_VERSION)}), *rest)

    def get_urls(self):
        own = [
            path(
                "podglad/",
                self.admin_site.admin_view(self.preview_view),
                name=self._url_name("preview", admin_ns=False),
            ),
            path(
                "<path:object_id>/historia/<int:version_id>/przywroc/",
                self.admin_site.admin_view(self.restore_view),
                name=self._url_name("restore", admin_ns=False),
            ),
            path(
                "usuniete/",
                self.admin_site.admin_view(self.recover_list_view),
                name=self._url_name("recoverlist", admin_ns=False),
            ),
            path(
                "usuniete/<int:version_id>/przywroc/",
                self.admin_site.admin_view(self.recover_view),
                name=self._url_name("recover", admin_ns=False),
            ),
        ]
        return own + super().get_urls()

    # --- writes go through the services --------------------------------------------------

    def save_related(self, request, form, formsets, change):
        # The service set the links with the row (one revision); only inlines remain.
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)

    def delete_model(self, request, obj):
        services.delete_entries(entries=[obj], editor=request.user)

    def delete_queryset(self, request, queryset):
        request._glossary_bulk_deleted = services.delete_entries(
            entries=queryset, editor=request.user
        )

    def _comment(self, form, change: bool) -> str:
        return services.change_comment(form, created=not change)

    # --- the live preview ------------------------------------------------------------------

    def preview_view(self, request):
        """POST {body, id?, autolink?} -> {"html": …}: the body as the page will show it,
        from the site's own renderer, sanitizer and auto-linker. Staff with the right to add
        or change this model only (the admin's login and CSRF checks come with admin_view)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not (self.has_change_permission(request) or self.has_add_permission(request)):
            raise PermissionDenied
        body = request.POST.get("body", "")
        if len(body) > self.PREVIEW_MAX_CHARS or "\x00" in body:
            return JsonResponse(
                {"error": f"Podgląd obejmuje do {self.PREVIEW_MAX_CHARS} znaków bez znaku NUL."},
                status=400,
            )
        html = render_markdown(body)
        if request.POST.get("autolink", "1") != "0":
            own = request.POST.get("id", "")
            exclude = int(own) if own.isdigit() and self.model is Term else None
            html = autolink.current_linker().link(html, exclude=exclude).html or html
        return JsonResponse({"html": html})

    # --- revisions -------------------------------------------------------------------------

    def history_view(self, request, object_id, extra_context=None):
        """The entry's revisions, newest first (who, when, what), each with a readable diff
        against the one before and a button to restore it."""
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404
        if not self.has_view_or_change_permission(request, obj):
            raise PermissionDenied
        versions = list(
            Version.objects.get_for_object(obj)
            .select_related("revision__user")
            .order_by("-revision__date_created", "-pk")
        )
        page = Paginator(versions, 20).get_page(request.GET.get("strona"))
        pairs = []
        for version in page:
            index = versions.index(version)
            pairs.append((version, versions[index + 1] if index + 1 < len(versions) else None))
        names = link_names(self.model, [v for pair in pairs for v in pair if v is not None])
        rows = []
        for version, previous in pairs:
            index = versions.index(version)
            rows.append(
                {
                    "version": version,
                    "diff": revision_diff(self.model, previous, version, names),
                    "restore_url": reverse(
                        self._url_name("restore"),
                        args=[obj.pk, version.pk],
                    ),
                    "current": index == 0,
                }
            )
        context = {
            **self.admin_site.each_context(request),
            "title": f"Historia zmian: {obj}",
            "subtitle": None,
            "object": obj,
            "opts": self.model._meta,
            "rows": rows,
            "page": page,
            "can_restore": self.has_change_permission(request, obj),
            **(extra_context or {}),
        }
        return TemplateResponse(request, "admin/glossary/revisions.html", context)

    def restore_view(self, request, object_id, version_id):
        """POST: bring the entry back to that revision (a new revision itself)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        obj = self.get_object(request, unquote(object_id))
        if obj is None:
            raise Http404
        if not self.has_change_permission(request, obj):
            raise PermissionDenied
        version = Version.objects.get_for_object(obj).filter(pk=version_id).first()
        if version is None:
            raise Http404
        try:
            services.restore_version(version, editor=request.user)
        except ValidationError as exc:
            self.message_user(
                request,
                _("This revision cannot be restored: %(problems)s")
                % {"problems": " ".join(exc.messages)},
                messages.ERROR,
            )
        else:
            when = formats.date_format(
                timezone.localtime(version.revision.date_created), "j E Y, H:i"
            )
            self.message_user(
                request,
                _("The revision of %(date)s was restored; it is now the newest revision.")
                % {"date": when},
                messages.SUCCESS,
            )
        return redirect(self._url_name("change"), obj.pk)

    # --- recovery of deleted entries ---------------------------------------------------------

    def changelist_view(self, request, extra_context=None):
        extra = {"recover_url": reverse(self._url_name("recoverlist"))}
        return super().changelist_view(request, {**extra, **(extra_context or {})})

    def _may_recover(self, request) -> bool:
        return self.has_add_permission(request) and self.has_change_permission(request)

    def recover_list_view(self, request):
        """Deleted entries, newest deletion first: the last revision of each (django-reversion's
        `get_deleted`, which is what `delete_entries` wrote: who deleted it and when), with a
        button to bring it back. One page of 20 is three queries (count, page, users)."""
        if not self._may_recover(request):
            raise PermissionDenied
        deleted = (
            Version.objects.get_deleted(self.model)
            .select_related("revision__user")
            .order_by("-revision__date_created", "-pk")
        )
        page = Paginator(deleted, 20).get_page(request.GET.get("strona"))
        opts = self.model._meta
        context = {
            **self.admin_site.each_context(request),
            "title": f"Usunięte {opts.verbose_name_plural} — przywracanie",
            "subtitle": None,
            "opts": opts,
            "page": page,
            "rows": [
                {"version": v, "recover_url": reverse(self._url_name("recover"), args=[v.pk])}
                for v in page
            ],
        }
        return TemplateResponse(request, "admin/glossary/recover_list.html", context)

    def recover_view(self, request, version_id):
        """POST: recreate a deleted entry from its last revision, with its id, fields and the
        links that still point somewhere (`services.restore_version`: full validation, a new
        revision, relinking). A slug or name taken since is refused with the model's message."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self._may_recover(request):
            raise PermissionDenied
        version = Version.objects.get_deleted(self.model).filter(pk=version_id).first()
        if version is None:
            raise Http404
        try:
            entry = services.restore_version(version, editor=request.user)
        except ValidationError as exc:
            self.message_user(
                request,
                _("“%(entry)s” cannot be recovered: %(problems)s")
                % {"entry": version.object_repr, "problems": " ".join(exc.messages)},
                messages.ERROR,
            )
            return redirect(self._url_name("recoverlist"))
        self.message_user(
            request,
            _("“%(entry)s” was recovered as its last revision held it (status included).")
            % {"entry": entry},
            messages.SUCCESS,
        )
        return redirect(self._url_name("change"), entry.pk)

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

    @admin.action(description="Opublikuj zaznaczone", permissions=["change"])
    def publish_selected(self, request, queryset):
        outcome = services.publish_entries(entries=queryset, editor=request.user)
        for entry, problems in outcome.skipped:
            self.message_user(
                request,
                _("“%(entry)s” was not published: %(problems)s")
                % {"entry": entry, "problems": " ".join(problems)},
                messages.ERROR,
            )
        if outcome.changed:
            self.message_user(
                request,
                count_message(self.model, "published", len(outcome.changed)),
                messages.SUCCESS,
            )
        if outcome.unchanged:
            self.message_user(
                request,
                count_message(self.model, "already_published", len(outcome.unchanged)),
                messages.INFO,
            )

    @admin.action(description="Cofnij do szkicu", permissions=["change"])
    def unpublish_selected(self, request, queryset):
        outcome = services.unpublish_entries(entries=queryset, editor=request.user)
        if outcome.changed:
            self.message_user(
                request,
                count_message(self.model, "unpublished", len(outcome.changed)),
                messages.SUCCESS,
            )
        if outcome.unchanged:
            self.message_user(
                request,
                count_message(self.model, "already_draft", len(outcome.unchanged)),
                messages.INFO,
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
            if is_autocomplete(request):
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
        ("Po angielsku", {"fields": ("english_name", "english_definition")}),
        ("Wyszukiwanie", {"fields": ("asked_as",)}),
        ("Powiązania", {"fields": ("categories", "related")}),
        (
            "Linkowanie pojęć",
            {"fields": ("autolink", "linkable", "unlinked_synonyms", CONFIRMED)},
        ),
        ("Publikacja", {"fields": ("status", "published_at")}),
        ("Historia", {"fields": HISTORY_FIELDS, "classes": ("collapse",)}),
    )

    def get_form(self, request, obj=None, change=False, **kwargs):
        base = guarded_form(self.form) if obj is not None else self.form
        kwargs.setdefault("form", confirmed_form(base))
        return super().get_form(request, obj, change, **kwargs)

    def save_model(self, request, obj, form, change):
        for warning in getattr(form, "warnings", []):
            messages.warning(request, warning)
        services.save_term(
            obj,
            editor=request.user,
            categories=form.cleaned_data.get("categories"),
            related=form.cleaned_data.get("related"),
            comment=self._comment(form, change),
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
        (None, {"fields": ("title", "slug", "lead", "body", "autolink")}),
        ("Powiązania", {"fields": ("terms", "series", "series_order")}),
        ("Publikacja", {"fields": ("status", "published_at", "author")}),
        ("Historia", {"fields": HISTORY_FIELDS, "classes": ("collapse",)}),
    )

    def get_changeform_initial_data(self, request):
        return {"author": request.user.pk, **super().get_changeform_initial_data(request)}

    def save_model(self, request, obj, form, change):
        if not change and obj.author_id is None:
            obj.author = request.user
        services.save_article(
            obj,
            editor=request.user,
            terms=form.cleaned_data.get("terms"),
            comment=self._comment(form, change),
        )
