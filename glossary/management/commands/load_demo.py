"""`manage.py load_demo`: the demo glossary and articles, through glossary/importing/.

Loading is an upsert by slug, so running it again changes nothing; `make run` calls it with
`--if-empty` so that it never touches a glossary someone has started editing. `linking.json`
holds what the import format does not carry: which terms are not linked in other texts
(their name is an everyday word) and which synonyms are searchable but not linked.
"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from glossary import services
from glossary.importexport import ImportErrors, decode, parse_json
from glossary.importing import import_articles, import_terms
from glossary.models import Term

# The linking settings `linking.json` may give a term.
LINKING_FIELDS = ("linkable", "unlinked_synonyms")

DEMO_DIR = Path(__file__).resolve().parent.parent.parent / "demo"


class Command(BaseCommand):
    help = "Load the demo terms and articles (glossary/demo/*.json). Safe to run repeatedly."

    def add_arguments(self, parser):
        parser.add_argument(
            "--if-empty", action="store_true", help="do nothing if any term already exists"
        )
        parser.add_argument(
            "--directory",
            type=Path,
            default=DEMO_DIR,
            help="folder holding terms.json and articles.json (default: glossary/demo)",
        )

    def handle(self, *args, if_empty, directory, verbosity, **options):
        if if_empty and Term.objects.exists():
            if verbosity >= 1:
                self.stdout.write("Słownik nie jest pusty: dane demonstracyjne pominięte.")
            return
        articles_path = directory / "articles.json"
        with transaction.atomic():
            terms = self.load(import_terms, directory / "terms.json")
            articles = self.load(import_articles, articles_path) if articles_path.exists() else None
            self.apply_linking(directory / "linking.json")
        if verbosity >= 1:
            self.stdout.write(terms.summary())
            if articles is not None:
                self.stdout.write(articles.summary())

    def load(self, service, path: Path):
        """Parse one demo file and hand it to `service`; errors name the file."""
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"Nie można odczytać pliku „{path}”: {exc.strerror}.") from None
        try:
            return service(parse_json(decode(data)))
        except ImportErrors as exc:
            raise CommandError(f"{path.name}: {exc.render()}") from None

    def apply_linking(self, path: Path) -> None:
        """Give the terms named in `path` (if it exists) their linking settings, through the
        term service (a revision, and the texts relinked); terms already so are left alone."""
        if not path.exists():
            return
        try:
            settings = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CommandError(f"{path.name}: nieczytelny plik ({exc}).") from None
        for term in Term.objects.filter(slug__in=list(settings)):
            values = settings[term.slug]
            unknown = set(values) - set(LINKING_FIELDS)
            if unknown:
                raise CommandError(f"{path.name}: nieznane pola {sorted(unknown)} ({term.slug}).")
            if all(getattr(term, name) == value for name, value in values.items()):
                continue
            for name, value in values.items():
                setattr(term, name, value)
            services.save_term(term, comment="Dane demonstracyjne: linkowanie.")
