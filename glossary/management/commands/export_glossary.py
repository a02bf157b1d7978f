"""`manage.py export_glossary [FILE]`: every term, in the format `import_glossary` reads."""

from django.core.management.base import BaseCommand, CommandError

from glossary.importexport import FORMATS, dump, format_for_path
from glossary.importing import export_terms


class Command(BaseCommand):
    help = (
        "Export every glossary term (drafts included) as JSON or CSV, ordered by slug. "
        "Writes to standard output when FILE is omitted or '-'."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", default="-", help="output .json or .csv file")
        parser.add_argument(
            "--format",
            dest="fmt",
            choices=FORMATS,
            help="output format (default: from the file extension; JSON on standard output)",
        )

    def handle(self, *args, file, fmt, verbosity, **options):
        to_stdout = file == "-"
        fmt = fmt or ("json" if to_stdout else format_for_path(file))
        if fmt is None:
            raise CommandError(
                f"Nieznany format pliku „{file}”: oczekiwano rozszerzenia .json albo .csv "
                "(albo podaj --format json|csv)."
            )
        rows = export_terms()
        text = dump(fmt, rows)
        if to_stdout:
            # The export is the only thing on stdout, so it can be piped straight to a file.
            self.stdout.write(text, ending="")
            return
        try:
            with open(file, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        except OSError as exc:
            raise CommandError(f"Nie można zapisać pliku „{file}”: {exc.strerror}.") from None
        if verbosity >= 1:
            self.stderr.write(f"Wyeksportowano {len(rows)} pojęć do {file}.")
