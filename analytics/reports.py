"""The editors' report, as plain reads (the admin view only renders them): what was asked and
not found (grouped by the folded query), the most requested terms, lookups per client and per
day, for one source (agents over MCP, or the site's search box) over the last `days` days.
Counts are sums of `Lookup.count` (identical lookups of one write batch share a row). A fixed
number of queries whatever the data: one aggregate per section, plus one query naming the
terms the report mentions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from functools import reduce
from operator import or_

from django.db import connection
from django.db.models import BooleanField, Count, Max, Q, Sum
from django.db.models.expressions import RawSQL
from django.db.models.functions import TruncDate
from django.utils import timezone

from glossary.models import Term
from glossary.polish import polish_slugify
from glossary.search import normalize_query

from .models import Lookup, Source

LIMIT = 50


@dataclass
class Report:
    source: str
    days: int
    total: int = 0
    misses_total: int = 0
    # Of misses_total: lookups with no query text (a call refused before searching, such as
    # an empty or invalid query), which the list of missed queries cannot show.
    misses_empty: int = 0
    misses: list[dict] = field(default_factory=list)
    top_terms: list[dict] = field(default_factory=list)
    clients: list[dict] = field(default_factory=list)
    per_day: list[dict] = field(default_factory=list)


def build(*, source: str = Source.MCP, days: int = 30, now=None) -> Report:
    since = (now or timezone.now()) - timedelta(days=days)
    rows = Lookup.objects.filter(source=source, at__gte=since)
    report = Report(source=source, days=days)

    totals = rows.aggregate(
        total=Sum("count"),
        misses=Sum("count", filter=Q(found=False)),
        empty=Sum("count", filter=Q(found=False, normalized="")),
    )
    report.total, report.misses_total = totals["total"] or 0, totals["misses"] or 0
    report.misses_empty = totals["empty"] or 0

    report.misses = list(
        rows.filter(found=False)
        .exclude(normalized="")
        .values("normalized")
        .annotate(
            times=Sum("count"),
            query=Max("query"),
            last=Max("at"),
            clients=Count("client_name", distinct=True),
        )
        .order_by("-times", "normalized")[:LIMIT]
    )
    report.top_terms = list(
        rows.filter(found=True, top_kind="term")
        .values("top_result")
        .annotate(times=Sum("count"), last=Max("at"))
        .order_by("-times", "top_result")[:LIMIT]
    )
    report.clients = list(
        rows.values("client_name", "client_version")
        .annotate(
            times=Sum("count"),
            misses=Sum("count", filter=Q(found=False), default=0),
            last=Max("at"),
        )
        .order_by("-times", "client_name", "client_version")[:LIMIT]
    )
    report.per_day = list(
        rows.annotate(day=TruncDate("at"))
        .values("day")
        .annotate(times=Sum("count"), misses=Sum("count", filter=Q(found=False), default=0))
        .order_by("-day")[: days + 1]
    )
    _name_terms(report)
    return report


def _name_terms(report: Report) -> None:
    """One query for the terms the report names: the most requested ones (their names), those
    a missed query would be (a term with that slug exists now: an editor created it), and
    those an editor attached a missed query to ("pytano też jako": the query finds the term
    now, so the row says so instead of offering to attach it again)."""
    for miss in report.misses:
        miss["slug"] = polish_slugify(miss["query"])[:250]
    slugs = {t["top_result"] for t in report.top_terms} | {m["slug"] for m in report.misses}
    slugs.discard("")
    asked = {m["normalized"] for m in report.misses}
    terms, attached = {}, {}
    if slugs or asked:
        rows = Term.objects.filter(Q(slug__in=slugs) | _named(asked)).values(
            "pk", "slug", "name", "asked_as"
        )
        for row in rows:
            terms[row["slug"]] = row
            for phrase in row.pop("asked_as") or ():
                attached.setdefault(normalize_query(phrase), row)
    for item in report.top_terms:
        item["term"] = terms.get(item["top_result"])
    for miss in report.misses:
        miss["term"] = terms.get(miss["slug"])
        miss["attached"] = attached.get(miss["normalized"])


def _named(folded: set[str]) -> Q:
    """Terms one of whose folded names (name, synonyms, English name, attached queries:
    `stemming.names_field`) is one of `folded`. On PostgreSQL one probe per query of the
    GIN index on `names_array` (the search migration's array of those names); the same
    test as `LIKE` over `search_names`, which PostgreSQL's planner answers with a
    sequential scan once there are dozens of patterns."""
    if not folded:
        return Q(pk__in=[])
    if connection.vendor == "postgresql":
        table = connection.ops.quote_name(Term._meta.db_table)
        test = " OR ".join([f"{table}.names_array @> ARRAY[%s]::text[]"] * len(folded))
        return Q(RawSQL(f"({test})", sorted(folded), BooleanField()))  # noqa: S611 - our SQL
    return reduce(or_, (Q(search_names__contains=f"| {name} |") for name in sorted(folded)))


def delete_older_than(*, days: int, now=None) -> int:
    """Delete rows older than `days` days; returns how many (retention)."""
    before = (now or timezone.now()) - timedelta(days=days)
    deleted, _ = Lookup.objects.filter(at__lt=before).delete()
    return deleted
