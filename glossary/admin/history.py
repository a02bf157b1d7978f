"""What changed between two revisions of an entry, as the history page shows it: word-level
diffs of texts, names in place of ids."""

import difflib
import re
from datetime import datetime

from django.utils import formats, timezone
from django.utils.html import escape, format_html
from django.utils.safestring import mark_safe
from django.utils.text import capfirst

_TOKENS = re.compile(r"\s+|[^\s]+")


def _inline_diff(old: str, new: str) -> str:
    """Word-level diff as HTML: removed words in <del>, added ones in <ins>, all escaped. A
    replaced run's removed and added words are kept apart by a space, so the text reads as
    words (copied, or read aloud) and not as "Atak,Atak"."""
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(escape("".join(a[i1:i2])))
            continue
        removed, added = "".join(a[i1:i2]), "".join(b[j1:j2])
        if removed:
            out.append(format_html("<del>{}</del>", removed))
        if removed and added and not (removed[-1].isspace() or added[0].isspace()):
            out.append(" ")
        if added:
            out.append(format_html("<ins>{}</ins>", added))
    return mark_safe("".join(out))  # noqa: S308 (every piece above is escaped)


def _display(model, name: str, value) -> str:
    field = model._meta.get_field(name)
    if value is None:
        return ""
    if isinstance(value, datetime):
        return formats.date_format(timezone.localtime(value), "j E Y, H:i")
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    if isinstance(value, bool):
        return "tak" if value else "nie"
    return "" if value is None else str(value)


def link_names(model, versions) -> dict[str, dict[int, str]]:
    """The names of every entry the `versions` link to, per M2M field: one query per field
    for a whole page of revisions."""
    out: dict[str, dict[int, str]] = {}
    for field in model._meta.many_to_many:
        ids = {pk for version in versions for pk in version.field_dict.get(field.attname) or []}
        related = field.related_model._default_manager.filter(pk__in=ids) if ids else []
        out[field.attname] = {item.pk: str(item) for item in related}
    return out


def revision_diff(model, older, newer, names: dict[str, dict[int, str]]) -> list[dict]:
    """What changed from `older` to `newer` (Versions; `older` None = the first revision),
    field by field: label and an HTML diff. Links are shown as the names they point to
    (`names`, from `link_names`)."""
    new = newer.field_dict
    old = older.field_dict if older is not None else {}
    changes = []
    for name in new:
        if name == "id":
            continue
        before, after = old.get(name), new.get(name)
        if before == after or (older is None and after in (None, "", [])):
            continue  # unchanged, or empty in the first revision
        field = model._meta.get_field(name)
        label = capfirst(field.verbose_name)
        if field.many_to_many:
            before, after, known = before or [], after or [], names.get(name, {})
            added = [known.get(pk, f"#{pk} (usunięte)") for pk in after if pk not in before]
            removed = [known.get(pk, f"#{pk} (usunięte)") for pk in before if pk not in after]
            html = format_html(
                "{}{}",
                format_html("<ins>+ {}</ins> ", ", ".join(added)) if added else "",
                format_html("<del>− {}</del>", ", ".join(removed)) if removed else "",
            )
        else:
            before, after = _display(model, name, before), _display(model, name, after)
            if before == after:
                continue  # a change no reader can see (fractions of a second)
            html = _inline_diff(before, after)
        changes.append({"label": label, "html": html})
    return changes
