"""Analytics in the admin: the recorded lookups (read-only) and the report for editors (what
agents and readers looked for and did not find, with a "create this term" link that opens
the term form with the name filled in; most requested terms; per client; per day)."""

from urllib.parse import urlencode

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from glossary.polish import polish_slugify

from . import reports
from .models import Lookup, Source

DAYS = (1, 7, 30, 90)


def term_add_url(query: str) -> str:
    """The term form with the name (and the slug it would get) filled in."""
    name = " ".join(query.split())[:200]
    params = urlencode({"name": name, "slug": polish_slugify(name)})
    return f"{reverse('admin:glossary_term_add')}?{params}"


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
        own = [path("raport/", report, name="analytics_lookup_report")]
        return own + super().get_urls()

    def report_view(self, request):
        """GET ?zrodlo=mcp|site&dni=N: the report for one source over the last N days."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        source = request.GET.get("zrodlo", Source.MCP)
        if source not in Source.values:
            source = Source.MCP
        try:
            days = int(request.GET.get("dni", 30))
        except ValueError:
            days = 30
        days = days if days in DAYS else 30
        report = reports.build(source=source, days=days)
        for miss in report.misses:
            miss["add_url"] = term_add_url(miss["query"])
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Raport: {Source(source).label}",
            "report": report,
            "sources": Source.choices,
            "days_choices": DAYS,
            "changelist_url": reverse("admin:analytics_lookup_changelist"),
        }
        return TemplateResponse(request, "admin/analytics/report.html", context)
