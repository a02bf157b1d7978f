"""Analytics in the admin: the recorded lookups (read-only) and the report for editors (what
agents and readers looked for and did not find, with a "create this term" link that opens
the term form with the name filled in, and a one-click "attach to a term" that adds the
query to that term's "pytano też jako"; most requested terms; per client; per day)."""

from urllib.parse import urlencode

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.decorators import method_decorator
from django.views.decorators.http import require_POST

from glossary import services
from glossary.models import Term
from glossary.polish import polish_slugify

from . import reports
from .models import Lookup, Source

DAYS = (1, 7, 30, 90)


def term_add_url(query: str) -> str:
    """The term form with the name (and the slug it would get) filled in."""
    name = " ".join(query.split())[:200]
    params = urlencode({"name": name, "slug": polish_slugify(name)})
    return f"{reverse('admin:glossary_term_add')}?{params}"


def report_params(params) -> tuple[str, int]:
    """The source and period `params` (?zrodlo=mcp|site&dni=N) name; unknown values give
    the defaults (agents, 30 days)."""
    source = params.get("zrodlo", Source.MCP)
    if source not in Source.values:
        source = Source.MCP
    try:
        days = int(params.get("dni", 30))
    except (TypeError, ValueError):
        days = 30
    return source, days if days in DAYS else 30


def report_url(params) -> str:
    source, days = report_params(params)
    return (
        f"{reverse('admin:analytics_lookup_report')}?{urlencode({'zrodlo': source, 'dni': days})}"
    )


class TermPicker(AutocompleteSelect):
    """The admin's autocomplete with a prompt in the empty box (Django leaves it blank)."""

    def build_attrs(self, base_attrs, extra_attrs=None):
        return {**super().build_attrs(base_attrs, extra_attrs), "data-placeholder": "Pojęcie…"}


class TermChoiceField(forms.ModelChoiceField):
    """A term by id; an id the database could not even look up (NUL, say) is no term."""

    def to_python(self, value):
        try:
            return super().to_python(value)
        except ValidationError as exc:
            raise ValidationError(self.error_messages["invalid_choice"], "invalid_choice") from exc


class AttachForm(forms.Form):
    """A missed query and the term it was about. The term is picked with the admin's
    autocomplete over every term, drafts included (the term admin's search, through the
    `related` field's autocomplete: the same list an editor picks related terms from); the
    query is checked by the service that stores it."""

    query = forms.Field(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, admin_site, **kwargs):
        super().__init__(*args, **kwargs)
        widget = TermPicker(Term._meta.get_field("related"), admin_site)
        widget.attrs["aria-label"] = "Pojęcie"
        self.fields["term"] = TermChoiceField(
            queryset=Term.objects.all(),
            widget=widget,
            label="Pojęcie",
            error_messages={
                "required": "Wybierz pojęcie, do którego dołączyć zapytanie.",
                "invalid_choice": "Nie ma takiego pojęcia (może zostało usunięte).",
            },
        )

    def clean_query(self):
        try:
            return services.clean_asked_phrase(self.cleaned_data["query"])
        except ValidationError as exc:
            raise ValidationError(exc.messages, code=exc.code) from exc


@admin.register(Lookup)
class LookupAdmin(admin.ModelAdmin):
    list_display = ("at", "source", "name", "query", "results", "top_result", "found",
                    "client_name", "client_version", "era", "latency_ms")  # fmt: skip
    list_filter = ("source", "found", "error", "name", "era", "client_name")
    search_fields = ("query", "normalized", "top_result")
    date_hierarchy = "at"
    list_per_page = 100
    actions = ["create_term"]
    change_list_template = "admin/analytics/lookup/change_list.html"

    # Rows are facts about the past: nobody adds or edits them (retention deletes them).
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.action(description="Utwórz pojęcie z zapytania")
    def create_term(self, request, queryset):
        lookups = list(queryset[:2])
        if len(lookups) != 1 or not lookups[0].query.strip():
            self.message_user(
                request, "Zaznacz jedno zapytanie z tekstem, aby utworzyć z niego pojęcie.",
                messages.WARNING,
            )  # fmt: skip
            return None
        return HttpResponseRedirect(term_add_url(lookups[0].query))

    def get_urls(self):
        report = self.admin_site.admin_view(self.report_view)
        attach = self.admin_site.admin_view(self.attach_view)
        own = [
            path("raport/", report, name="analytics_lookup_report"),
            path("raport/dolacz/", attach, name="analytics_lookup_attach"),
        ]
        return own + super().get_urls()

    def can_attach(self, request) -> bool:
        """Attaching a query edits the term: the term admin's change permission decides."""
        return self.admin_site.get_model_admin(Term).has_change_permission(request)

    def report_view(self, request):
        """GET ?zrodlo=mcp|site&dni=N: the report for one source over the last N days."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        source, days = report_params(request.GET)
        report = reports.build(source=source, days=days)
        can_attach = self.can_attach(request)
        media = forms.Media()
        for i, miss in enumerate(report.misses):
            miss["add_url"] = term_add_url(miss["query"])
            if can_attach and not miss["attached"]:
                # Ids of their own per row; the names stay the ones the attach view reads.
                miss["attach_form"] = form = AttachForm(
                    initial={"query": miss["query"]},
                    admin_site=self.admin_site,
                    auto_id=f"id_miss{i}_%s",
                )
                media = form.media
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Raport: {Source(source).label}",
            "report": report,
            "sources": Source.choices,
            "days_choices": DAYS,
            "changelist_url": reverse("admin:analytics_lookup_changelist"),
            "attach_url": reverse("admin:analytics_lookup_attach"),
            "media": media,
        }
        return TemplateResponse(request, "admin/analytics/report.html", context)

    @method_decorator(require_POST)
    def attach_view(self, request):
        """POST term, query (zrodlo, dni: the report to return to): attach the query to the
        term's "pytano też jako" and go back to the report with a message saying what
        happened; bad input is a message too, never an error page."""
        if not self.can_attach(request):
            raise PermissionDenied
        form = AttachForm(request.POST, admin_site=self.admin_site)
        back = HttpResponseRedirect(report_url(request.POST))
        if not form.is_valid():
            for error in form.errors.values():
                messages.error(request, " ".join(error))
            return back
        term, query = form.cleaned_data["term"], form.cleaned_data["query"]
        if not self.admin_site.get_model_admin(Term).has_change_permission(request, term):
            raise PermissionDenied
        try:
            done = services.attach_asked_as(term_id=term.pk, query=query, editor=request.user)
        except Term.DoesNotExist:
            messages.error(request, "Nie ma takiego pojęcia (może zostało usunięte).")
            return back
        if done.added:
            messages.success(
                request,
                f"Dołączono zapytanie „{done.phrase}” do pojęcia „{done.term.name}” "
                "(pytano też jako).",
            )
        else:
            messages.info(
                request,
                f"Pojęcie „{done.term.name}” już zna zapytanie „{done.phrase}” (jako nazwę, "
                "synonim albo „pytano też jako”); nic nie zmieniono.",
            )
        return back
