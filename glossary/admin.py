"""The editors' admin ("Słownik — redakcja").

Declarative on purpose: what each list shows, filters and searches is in class attributes;
input adaptation lives in `glossary/forms.py`, writes in `glossary/services.py` (every save,
delete and bulk action goes through a named service, which makes it a revision and keeps
auto-links right). Beyond Django's admin: a live Markdown preview beside the body (the site's
own renderer, sanitizer and auto-linker, `preview_view`), the revisions of an entry with a
readable diff and restore (`history_view`), and messages in Polish with the right gender
and plural forms (gettext catalog in glossary/locale/).
Editors belong to the "Editors" group (migration 0002). They hold `auth.view_user` only so
the article author autocomplete works, so the user admin below keeps the account pages
themselves for people who may change accounts.
"""

import difflib
import re
from datetime import datetime

from django import forms
from django.apps import apps as django_apps
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.db.models import Case, Count, IntegerField, Q, When
from django.http import Http404, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import formats, timezone
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from reversion.models import Version

from . import autolink, search, services
from .forms import ArticleAdminForm, CategoryAdminForm, SeriesAdminForm, TermAdminForm
from .markdown import render_markdown
from .models import Article, Category, Series, Status, Term
from .polish import fold

admin.site.site_header = "Słownik — redakcja"
admin.site.site_title = "Słownik — redakcja"
admin.site.index_title = "Treści słownika"
# django-axes names its admin section after itself; editors read Polish (its models' names come
# from glossary/locale).
django_apps.get_app_config("axes").verbose_name = "Logowanie: próby i blokady"

HISTORY_FIELDS = ("created_at", "updated_at", "last_editor")
EDITED_VERSION = "edited_version"
EDITED_ELSEWHERE = (
    "Od otwarcia tego formularza wpis zapisał(a) {who} ({when}). Twoje zmiany NIE zostały "
    "zapisane: są w formularzu poniżej. Porównaj je z historią zmian; ponowne „Zapisz” "
    "zastąpi tamtą wersję Twoją."
)


def _edit_version(updated_at) -> str:
    return updated_at.isoformat() if updated_at else ""


def guarded_form(form_class):
    """`form_class` with the lost-update guard of the change form: a hidden field carries
    the entry's `updated_at` as the form showed it; saving compares it with the row, locked
    until the save commits (the admin's change view is one transaction), and refuses when
    someone else saved in between. The form comes back with everything the editor typed and
    the row's current version in the hidden field, so saving again is a conscious overwrite.
    A POST without the field (a script, not the rendered form) is not checked."""

    class Guarded(form_class):
        edited_version = forms.CharField(widget=forms.HiddenInput, required=False)

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            if self.instance.pk is not None:
                self.fields[EDITED_VERSION].initial = _edit_version(self.instance.updated_at)

        def clean(self):
            cleaned = super().clean()
            key = self.add_prefix(EDITED_VERSION)
            sent = self.data.get(key)
            if self.instance.pk is None or sent is None:
                return cleaned
            model = type(self.instance)
            row = (
                model._default_manager.select_for_update()
                .filter(pk=self.instance.pk)
                .values("updated_at", "last_editor_id")
                .first()
            )
            if row is None or sent == _edit_version(row["updated_at"]):
                return cleaned
            editor = User.objects.filter(pk=row["last_editor_id"]).first()
            who = (editor.get_full_name() or editor.get_username()) if editor else "ktoś inny"
            when = formats.date_format(timezone.localtime(row["updated_at"]), "j E Y, H:i:s")
            self.data = self.data.copy()
            self.data[key] = _edit_version(row["updated_at"])
            raise ValidationError(
                EDITED_ELSEWHERE.format(who=who, when=when), code="edited_elsewhere"
            )

    Guarded.__name__ = form_class.__name__
    return Guarded


CONFIRMED = "confirm_warnings"


def confirmed_form(form_class):
    """`form_class` (collecting `warnings`, as `TermAdminForm` does) that shows them before
    saving: a form with warnings is sent back with them until the editor ticks "Zapisz mimo
    ostrzeżeń"; then it saves and the admin repeats them as warning messages."""

    class Confirmed(form_class):
        confirm_warnings = forms.BooleanField(
            label="Zapisz mimo ostrzeżeń",
            required=False,
            help_text="Zaznacz, jeśli ostrzeżenia nad formularzem dotyczą czegoś zamierzonego.",
        )

        def clean(self):
            cleaned = super().clean()
            warnings = getattr(self, "warnings", [])
            if warnings and not cleaned.get(CONFIRMED):
                raise ValidationError(
                    [ValidationError(w, code="needs_confirmation") for w in warnings]
                )
            return cleaned

    Confirmed.__name__ = form_class.__name__
    return Confirmed


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
MESSAGES = {
    Term: {
        "added": gettext_lazy("The term “{obj}” was added."),
        "changed": gettext_lazy("The term “{obj}” was changed."),
        "deleted": gettext_lazy("The term “{obj}” was deleted."),
        "continue": gettext_lazy("You can edit it again below."),
        "another": gettext_lazy("You can add another term below."),
    },
    Article: {
        "added": gettext_lazy("The article “{obj}” was added."),
        "changed": gettext_lazy("The article “{obj}” was changed."),
        "deleted": gettext_lazy("The article “{obj}” was deleted."),
        "continue": gettext_lazy("You can edit the article again below."),
        "another": gettext_lazy("You can add another article below."),
    },
    Category: {
        "added": gettext_lazy("The category “{obj}” was added."),
        "changed": gettext_lazy("The category “{obj}” was changed."),
        "deleted": gettext_lazy("The category “{obj}” was deleted."),
        "continue": gettext_lazy("You can edit the category again below."),
        "another": gettext_lazy("You can add another category below."),
    },
    Series: {
        "added": gettext_lazy("The series “{obj}” was added."),
        "changed": gettext_lazy("The series “{obj}” was changed."),
        "deleted": gettext_lazy("The series “{obj}” was deleted."),
        "continue": gettext_lazy("You can edit the series again below."),
        "another": gettext_lazy("You can add another series below."),
    },
}


def count_message(model, what: str, count: int) -> str:
    """ "5 pojęć opublikowano." — the plural form Polish needs for `count`."""
    forms = {
        (Term, "deleted"): ("%(count)d term was deleted.", "%(count)d terms were deleted."),
        (Article, "deleted"): (
            "%(count)d article was deleted.",
            "%(count)d articles were deleted.",
        ),
        (Category, "deleted"): (
            "%(count)d category was deleted.",
            "%(count)d categories were deleted.",
        ),
        (Series, "deleted"): (
            "%(count)d series was deleted.",
            "%(count)d series were deleted.",
        ),
        (Term, "published"): (
            "%(count)d term was published.",
            "%(count)d terms were published.",
        ),
        (Article, "published"): (
            "%(count)d article was published.",
            "%(count)d articles were published.",
        ),
        (Term, "unpublished"): (
            "%(count)d term was returned to draft.",
            "%(count)d terms were returned to draft.",
        ),
        (Article, "unpublished"): (
            "%(count)d article was returned to draft.",
            "%(count)d articles were returned to draft.",
        ),
        (Term, "already_published"): (
            "%(count)d term was already published and is unchanged.",
            "%(count)d terms were already published and are unchanged.",
        ),
        (Article, "already_published"): (
            "%(count)d article was already published and is unchanged.",
            "%(count)d articles were already published and are unchanged.",
        ),
        (Term, "already_draft"): (
            "%(count)d term was already a draft and is unchanged.",
            "%(count)d terms were already drafts and are unchanged.",
        ),
        (Article, "already_draft"): (
            "%(count)d article was already a draft and is unchanged.",
            "%(count)d articles were already drafts and are unchanged.",
        ),
    }
    singular, plural = forms[model, what]
    return ngettext(singular, plural, count) % {"count": count}


class PolishMessagesMixin:
    """Replaces Django's generic success messages by `MESSAGES`: the add/change/delete
    responses leave a note on the request, and `message_user` swaps the text it is given."""

    def _note(self, request, verb: str, obj) -> None:
        request._glossary_message = (verb, str(obj))

    def response_add(self, request, obj, post_url_continue=None):
        self._note(request, "added", obj)
        return super().response_add(request, obj, post_url_continue)

    def response_change(self, request, obj):
        self._note(request, "changed", obj)
        return super().response_change(request, obj)

    def response_delete(self, request, obj_display, obj_id):
        self._note(request, "deleted", obj_display)
        return super().response_delete(request, obj_display, obj_id)

    def message_user(self, request, message, level=messages.INFO, *args, **kwargs):
        note = getattr(request, "_glossary_message", None)
        bulk = getattr(request, "_glossary_bulk_deleted", None)
        texts = MESSAGES[self.model]
        if note is not None and level == messages.SUCCESS:
            verb, name = note
            request._glossary_message = None
            message = texts[verb].format(obj=name)
            if verb != "deleted" and "_continue" in request.POST:
                message = f"{message} {texts['continue']}"
            elif verb != "deleted" and "_addanother" in request.POST:
                message = f"{message} {texts['another']}"
        elif bulk is not None and level == messages.SUCCESS:
            request._glossary_bulk_deleted = None
            message = count_message(self.model, "deleted", bulk)
        return super().message_user(request, message, level, *args, **kwargs)

    def delete_queryset(self, request, queryset):
        request._glossary_bulk_deleted = queryset.count()
        super().delete_queryset(request, queryset)


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

_TOKENS = re.compile(r"\s+|[^\s]+")


def _inline_diff(old: str, new: str) -> str:
    """Word-level diff as HTML: removed words in <del>, added ones in <ins>, all escaped. A
    replaced run's removed and added words are kept apart by a space, so the text reads as
    words (copied, or read aloud) and not as "Atak,Atak"."""
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(escape("".join(a[i1:i2])))
            continue
        removed, added = "".join(a[i1:i2]), "".join(b[j1:j2])
        if removed:
            out.append(format_html("<del>{}</del>", removed))
        if removed and added and not (removed[-1].isspace() or added[0].isspace()):
            out.append(" ")
        if added:
            out.append(format_html("<ins>{}</ins>", added))
    return mark_safe("".join(out))  # noqa: S308 (every piece above is escaped)


def _display(model, name: str, value) -> str:
    field = model._meta.get_field(name)
    if value is None:
        return ""
    if isinstance(value, datetime):
        return formats.date_format(timezone.localtime(value), "j E Y, H:i")
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    if isinstance(value, bool):
        return "tak" if value else "nie"
    return "" if value is None else str(value)


def link_names(model, versions) -> dict[str, dict[int, str]]:
    """The names of every entry the `versions` link to, per M2M field: one query per field
    for a whole page of revisions."""
    out: dict[str, dict[int, str]] = {}
    for field in model._meta.many_to_many:
        ids = {pk for version in versions for pk in version.field_dict.get(field.attname) or []}
        related = field.related_model._default_manager.filter(pk__in=ids) if ids else []
        out[field.attname] = {item.pk: str(item) for item in related}
    return out


def revision_diff(model, older, newer, names: dict[str, dict[int, str]]) -> list[dict]:
    """What changed from `older` to `newer` (Versions; `older` None = the first revision),
    field by field: label and an HTML diff. Links are shown as the names they point to
    (`names`, from `link_names`)."""
    new = newer.field_dict
    old = older.field_dict if older is not None else {}
    changes = []
    for name in new:
        if name == "id":
            continue
        before, after = old.get(name), new.get(name)
        if before == after or (older is None and after in (None, "", [])):
            continue  # unchanged, or empty in the first revision
        field = model._meta.get_field(name)
        label = capfirst(field.verbose_name)
        if field.many_to_many:
            before, after, known = before or [], after or [], names.get(name, {})
            added = [known.get(pk, f"#{pk} (usunięte)") for pk in after if pk not in before]
            removed = [known.get(pk, f"#{pk} (usunięte)") for pk in before if pk not in after]
            html = format_html(
                "{}{}",
                format_html("<ins>+ {}</ins> ", ", ".join(added)) if added else "",
                format_html("<del>− {}</del>", ", ".join(removed)) if removed else "",
            )
        else:
            before, after = _display(model, name, before), _display(model, name, after)
            if before == after:
                continue  # a change no reader can see (fractions of a second)
            html = _inline_diff(before, after)
        changes.append({"label": label, "html": html})
    return changes


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
