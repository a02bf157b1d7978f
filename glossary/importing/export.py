"""The inverse of `import_terms`: every term as a row of the import's fields."""

from collections import defaultdict

from ..models import Term
from ..polish import sort_key


def export_terms() -> list[dict]:
    """Every term, drafts included, as export rows: the inverse of `import_terms`.

    Terms are ordered by slug, categories by Polish alphabetical order and related slugs
    alphabetically, so exporting the same content twice gives byte-identical files;
    synonyms keep the editor's order. Three queries, whatever the size of the glossary.
    """
    categories: dict[int, list[str]] = defaultdict(list)
    for term_id, name in Term.categories.through.objects.values_list("term_id", "category__name"):
        categories[term_id].append(name)
    related: dict[int, list[str]] = defaultdict(list)
    for from_id, to_slug in Term.related.through.objects.values_list(
        "from_term_id", "to_term__slug"
    ):
        related[from_id].append(to_slug)
    columns = ("name", "slug", "short_definition", "body", "synonyms", "status",
               "english_name", "english_definition", "asked_as")  # fmt: skip
    rows = []
    for row in Term.objects.order_by().values("id", *columns):
        pk = row.pop("id")
        row["categories"] = sorted(categories[pk], key=lambda item: (sort_key(item), item))
        row["related"] = sorted(related[pk])
        rows.append(row)
    # Sorted here, not by the database, whose collation may ignore hyphens.
    rows.sort(key=lambda row: row["slug"])
    return rows
