"""`manage.py explain_search "QUERY"`: how the search engine read a query and why each term
ranks where it does, as JSON (glossary/search/explain.py)."""

import json

from django.core.management.base import BaseCommand

from glossary.search.explain import explain


class Command(BaseCommand):
    help = (
        "Explain a search: the words the engine kept and their weights, the frames it dropped, "
        "the corrections, and per hit its tier and the field each word was found in."
    )

    def add_arguments(self, parser):
        parser.add_argument("query", help="what a reader or an agent typed")
        parser.add_argument("--limit", type=int, default=10, help="hits to explain (1-100)")

    def handle(self, *args, query, limit, **options):
        report = explain(query, limit=limit)
        self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
