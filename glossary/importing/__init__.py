"""Importing the glossary from files: every row checked, then a plan, then the writes.

`import_terms` is built for 100,000-row files and runs in three phases:

- **check** (`check_terms`): each row's own rules, then the rules that need the whole file
  and the database (unique slugs and names, related slugs that exist). Any problem raises
  `ImportErrors` with all of them, and nothing has been written. Limits and messages are the
  model's own (`Term._meta`, `glossary.models` messages), so the admin, the import and the
  database refuse the same things with the same words.
- **plan** (`plan_terms`): what the database holds for the listed terms (their fields,
  categories and links, a constant number of queries per 900 terms) against what the file
  wants: terms to create and update, categories to create, links to add and remove. A dry run
  stops here and reports the plan.
- **apply** (`apply_terms`): `bulk_create`/`bulk_update` and M2M through rows inserted
  directly, so it does by hand what `save()` would do (`refresh_derived()` on every written
  row, `updated_at`, both directions of the symmetrical `related` link, the content-change
  events); rows that already match the database are left untouched.

After the writes, the terms' stored auto-links are updated in every text the change concerns
(`services.relink_after_term_changes`) and the import is one revision, written in bulk
(`apply._import_revision`).

`import_articles` (editorial files of dozens of rows) checks every row first too, then saves
row by row through `services.save_article` (a revision each, linked). `export_terms` is the
inverse of `import_terms`.

Modules: `check`, `plan`, `apply` (with `import_terms`), `export`, `articles`, `report`; the
bulk writes themselves (COPY, server-side binding) are glossary/db/bulk.py.
"""

from ..db.bulk import COPY_FROM, bulk_insert, copy_rows, insert_link_rows, server_side_binding
from .apply import ANALYZE_FROM, apply_terms, import_terms
from .articles import import_articles
from .check import check_terms
from .export import export_terms
from .plan import TermPlan, plan_terms
from .report import ArticleImportReport, ImportReport, Progress

__all__ = [
    "ANALYZE_FROM",
    "COPY_FROM",
    "ArticleImportReport",
    "ImportReport",
    "Progress",
    "TermPlan",
    "apply_terms",
    "bulk_insert",
    "check_terms",
    "copy_rows",
    "export_terms",
    "import_articles",
    "import_terms",
    "insert_link_rows",
    "plan_terms",
    "server_side_binding",
]
