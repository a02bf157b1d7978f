"""The Python interpreter of the field table (api/fields.py): an entry's or a linked
entry's object built from a row, as api/rowjson.py builds it in SQL."""

from datetime import UTC
from html import escape

from django.utils import timezone

from glossary.models import Status

from . import links
from .fields import CARDS, Field, relations


def wp_dates(value, tz=None) -> tuple[str, str]:
    """WordPress's `date` (site time, no offset) and `date_gmt` (UTC, no offset). `tz`: the
    current time zone, when the caller has it already (a list asks for it once, not twice a
    row)."""
    # isoformat pads years below 1000 (strftime does not), so "YYYY-MM-DDTHH:MM:SS" is always
    # the first 19 characters, the offset after them; "seconds" drops the microseconds.
    local = value.astimezone(tz or timezone.get_current_timezone()).isoformat(timespec="seconds")
    return local[:19], value.astimezone(UTC).isoformat(timespec="seconds")[:19]


def wp_status(entry, now) -> str:
    if entry.status != Status.PUBLISHED:
        return "draft"
    return "future" if entry.published_at and entry.published_at > now else "publish"


def value(field: Field, obj, *, kind: str, ctx: str, now=None, tz=None, entry_links=None):
    """The value of `field` (api/fields.py) for `obj` (a row, an entry or a link row): the
    Python interpreter of the field table."""
    how, source = field.kind, field.source
    if how == "column":
        return getattr(obj, source[0])
    if how == "kind":
        return kind
    if how == "page":
        return links.page(kind, getattr(obj, source[0]))
    if how in ("local_date", "utc_date"):
        when = next(v for v in (getattr(obj, name) for name in source) if v is not None)
        return wp_dates(when, tz)[how == "utc_date"]
    if how == "status":
        return wp_status(obj, now)
    if how == "strings":
        return list(getattr(obj, source[0]))
    if how == "link_ids":
        return entry_links.ids(source[0]) if entry_links is not None else []
    text = getattr(obj, source[0])
    if how == "escaped":
        out = {"rendered": escape(text, quote=False)}
    elif how == "excerpt":
        out = {"rendered": links.excerpt_html(text)}
    else:  # html
        out = {"rendered": text}
    if ctx == "edit":
        out["raw"] = getattr(obj, source[-1])
    return out


def embed_link(link) -> dict:
    """A linked entry in `context=embed` (`fields.CARDS`): enough to show a card and follow
    `self`."""
    kind = link.kind
    base = links.route(kind)
    card = {field.name: value(field, link, kind=kind, ctx="embed") for field in CARDS[kind]}
    card["_links"] = {"self": [{"href": f"{base}/{link.id}"}], "collection": [{"href": base}]}
    return card


def embedded(kind: str, entry_links, wanted) -> dict:
    """`_embedded` for an entry of `kind` whose links are `entry_links` (selectors.EntryLinks);
    `wanted` is a set of relation names or {"*"} (`fields.RELATIONS`)."""
    return {
        relation.name: [[embed_link(link) for link in getattr(entry_links, relation.attribute)]]
        for relation in relations(kind, wanted)
    }
