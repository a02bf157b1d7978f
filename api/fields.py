"""The REST objects of terms, articles and their taxonomies, declared once.

Each object is a table of `Field`s: its name in the answer, the kind of value it is, the model
fields (or link-row attributes) it is made from, and the contexts it appears in (WordPress's
`view`, `embed`, `edit`). Two interpreters read the same table: api/serializers.py builds the
object in Python from a row, api/rowjson.py builds the SQL expression that makes the database
write the same bytes. `_links` is `links.entry_links` in both (rowjson fills its template),
and `_embedded` holds, per `RELATIONS`, the linked entries' cards (`CARDS`).
tests/api/test_rowjson.py compares the two forms byte for byte on both databases.

Kinds (the value for `source`):
- `column`: the model field as it is (a plain-text column as a JSON string);
- `kind`: the object's type (`term`, `article`, a taxonomy's name);
- `page`: the public address of the entry (`links.page` from its slug);
- `local_date`/`utc_date`: the first of the fields that is set, WordPress's `date`
  (site time) or `date_gmt` (UTC), to the second, without an offset;
- `status`: WordPress's `publish`/`future`/`draft` at the read's clock;
- `escaped`, `html`, `excerpt`: `{"rendered": …}` of the text escaped, of stored HTML, and
  of the text escaped in a paragraph; in `edit`, `raw` is the second source (or the first);
- `strings`: a JSON list of strings as it is;
- `link_ids`: the ids of the entry's published links of one kind, in their sort order.
"""

from __future__ import annotations

from dataclasses import dataclass

ALL = ("view", "embed", "edit")
VIEW_EDIT = ("view", "edit")
EDIT = ("edit",)


@dataclass(frozen=True)
class Field:
    name: str
    kind: str
    source: tuple[str, ...] = ()
    contexts: tuple[str, ...] = ALL


def _common(title: str, excerpt: str) -> tuple[Field, ...]:
    when = ("published_at", "created_at")
    return (
        Field("id", "column", ("id",)),
        Field("date", "local_date", when, VIEW_EDIT),
        Field("date_gmt", "utc_date", when, VIEW_EDIT),
        Field("modified", "local_date", ("updated_at",), VIEW_EDIT),
        Field("modified_gmt", "utc_date", ("updated_at",), VIEW_EDIT),
        Field("slug", "column", ("slug",)),
        Field("status", "status", ("status", "published_at"), VIEW_EDIT),
        Field("type", "kind"),
        Field("link", "page", ("slug",)),
        Field("title", "escaped", (title,)),
        Field("content", "html", ("body_html", "body"), VIEW_EDIT),
        Field("excerpt", "excerpt", (excerpt,)),
        Field("last_editor", "column", ("last_editor_id",), EDIT),
    )


_TAXONOMY = (
    Field("id", "column", ("id",)),
    Field("count", "column", ("entry_count",), VIEW_EDIT),
    Field("description", "column", ("description",), VIEW_EDIT),
    Field("link", "page", ("slug",)),
    Field("name", "column", ("name",)),
    Field("slug", "column", ("slug",)),
    Field("taxonomy", "kind"),
)

FIELDS: dict[str, tuple[Field, ...]] = {
    "category": _TAXONOMY,
    "series": _TAXONOMY,
    "term": (
        *_common("name", "short_definition"),
        Field("synonyms", "strings", ("synonyms",), VIEW_EDIT),
        Field("english_name", "column", ("english_name",), VIEW_EDIT),
        Field("english_definition", "column", ("english_definition",), VIEW_EDIT),
        Field("categories", "link_ids", ("categories",), VIEW_EDIT),
        Field("related", "link_ids", ("related",), VIEW_EDIT),
        # Editorial: what readers asked when they looked for the term; never shown to them.
        Field("asked_as", "strings", ("asked_as",), EDIT),
    ),
    "article": (
        *_common("title", "lead"),
        Field("author", "column", ("author_id",), VIEW_EDIT),
        Field("terms", "link_ids", ("terms",), VIEW_EDIT),
        Field("series", "column", ("series_id",), VIEW_EDIT),
        Field("series_order", "column", ("series_order",), VIEW_EDIT),
    ),
}


@dataclass(frozen=True)
class Relation:
    """A link relation `_embed` may embed: its name in `_links`, the kind of the linked
    entries, their attribute in `selectors.EntryLinks` and the part of the entry's link rows
    they come from (`selectors.entry_link_parts`), and their order (articles newest first)."""

    name: str
    kind: str
    attribute: str
    part: str
    newest_first: bool = False


RELATIONS: dict[str, tuple[Relation, ...]] = {
    "term": (
        Relation("wp:term", "category", "categories", "category"),
        Relation("related", "term", "related", "term"),
        Relation("webflux:articles", "article", "articles", "article", newest_first=True),
    ),
    "article": (
        Relation("webflux:terms", "term", "terms", "term"),
        Relation("wp:term", "series", "series", "series"),
    ),
}

# A linked entry in `_embedded` (context=embed): enough to show a card and follow `self`,
# from a link row (`selectors.Link`: id, slug, title, summary). `_links` follows.
_ENTRY_CARD = (
    Field("id", "column", ("id",)),
    Field("slug", "column", ("slug",)),
    Field("type", "kind"),
    Field("link", "page", ("slug",)),
    Field("title", "escaped", ("title",)),
    Field("excerpt", "excerpt", ("summary",)),
)
_TAXONOMY_CARD = (
    Field("id", "column", ("id",)),
    Field("link", "page", ("slug",)),
    Field("name", "column", ("title",)),
    Field("slug", "column", ("slug",)),
    Field("taxonomy", "kind"),
)
CARDS = {"term": _ENTRY_CARD, "article": _ENTRY_CARD,
         "category": _TAXONOMY_CARD, "series": _TAXONOMY_CARD}  # fmt: skip


def relations(kind: str, wanted) -> tuple[Relation, ...]:
    """The relations of an entry of `kind` that `_embed` (`wanted`: names, or `*`) asks for."""
    wanted = set(wanted or ())
    return tuple(r for r in RELATIONS.get(kind, ()) if "*" in wanted or r.name in wanted)


def contexts(kind: str) -> dict[str, tuple[str, ...]]:
    """Field name -> the contexts it appears in, for the fields not in every context."""
    return {f.name: f.contexts for f in FIELDS[kind] if f.contexts != ALL}
