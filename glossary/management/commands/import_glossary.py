"""`manage.py import_glossary FILE`: the command-line adapter of `importing.import_terms`."""

import sys

from django.core.management.base import BaseCommand, CommandError

from glossary.importexport import FORMATS, ImportErrors, decode, format_for_path, parse
from glossary.importing import import_terms

# Below this many rows an import takes a second or two: phase messages would be noise.
LARGE_FILE_ROWS = 5000


class Command(BaseCommand):
    help = (
        "Import glossary terms from a JSON or CSV file: upsert by slug, all or nothing. "
        "Every invalid row is reported with its position and nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "file", help="a .json or .csv file; '-' reads standard input (JSON unless --format)"
        )
        parser.add_argument(
            "--format",
            dest="fmt",
            choices=FORMATS,
            help="file format (default: from the file extension)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="check the file and report, write nothing"
        )

    def handle(self, *args, file, fmt, dry_run, verbosity, **options):
        # Standard input defaults to JSON, like export_glossary's standard output.
        fmt = fmt or ("json" if file == "-" else format_for_path(file))
        if fmt is None:
            raise CommandError(
                f"Nieznany format pliku „{file}”: oczekiwano rozszerzenia .json albo .csv "
                "(albo podaj --format json|csv)."
            )
        data = read_input(file)
        try:
            rows = parse(fmt, decode(data))
            show = verbosity >= 2 or (verbosity >= 1 and len(rows) >= LARGE_FILE_ROWS)
            report = import_terms(
                rows, dry_run=dry_run, progress=self.stderr.write if show else None
            )
        except ImportErrors as exc:
            raise CommandError(exc.render()) from None
        if verbosity >= 1:
            self.stdout.write(report.summary())


def read_input(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise CommandError(f"Nie można odczytać pliku „{path}”: {exc.strerror}.") from None
