"""Relevance per class: MRR, top-1, top-3 and top-10 of `term_search` per glossary and query
class, and every query whose expected term is not first.

    scripts/with-postgres .venv/bin/python bench/relevance.py      # PostgreSQL
    .venv/bin/python bench/relevance.py --sqlite                    # SQLite

The query sets, the glossaries and the scoring are those of tests/glossary/data/relevance/
(the test tests/glossary/test_search_classes.py holds floors on the same numbers). Each run
migrates a throwaway database — `slownik_relevance` in the cluster of `DATABASE_URL`, or a
temporary SQLite file — loads each glossary in a transaction, searches, rolls back, and
deletes the database. Nothing here is timed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]
sys.path.insert(0, str(ROOT))

from bench.throwaway import database, drop_database, environment  # noqa: E402
from tests.glossary.data import relevance  # noqa: E402

DATABASE = "slownik_relevance"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sqlite", action="store_true", help="a temporary SQLite file even if DATABASE_URL is set"
    )
    parser.add_argument(
        "--glossary", choices=list(relevance.GLOSSARIES), action="append", help="only these"
    )
    args = parser.parse_args()
    base = os.environ.get("DATABASE_URL", "")
    os.environ.update(environment("relevance"))
    if base.startswith("postgres") and not args.sqlite:
        os.environ["DATABASE_URL"] = database(base, DATABASE)[0]
        try:
            measure(args.glossary)
        finally:
            from django.db import connections

            connections.close_all()
            drop_database(base, DATABASE)
    else:
        with tempfile.TemporaryDirectory(prefix="slownik-relevance-") as folder:
            os.environ["DATABASE_URL"] = f"sqlite:///{folder}/relevance.sqlite3"
            measure(args.glossary)


def measure(only: list[str] | None) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    results = {name: relevance.run(name) for name in (only or relevance.GLOSSARIES)}
    print(relevance.report(results, connection.vendor))


if __name__ == "__main__":
    main()
