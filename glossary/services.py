"""Named writes (HackSoft style: selectors read, services write): the admin, the import and the
REST API all write through these.

Each service is one `@transaction.atomic` function that saves row by row through
`Model.save()`, so derived columns, `updated_at` and `last_editor` can never go stale the
way they would behind a bare `QuerySet.update()`; each is one revision (django-reversion)
and keeps the stored auto-links right (glossary/autolink.py). The bulk import, which cannot
afford row-by-row saves for 100,000 rows, is its own module (glossary/importing/) and
calls `relink_after_term_changes` and writes its revision in bulk.
"""

import unicodedata
from dataclasses import dataclass, field

import reversion
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import formats, timezone

from . import autolink, events
from .forms import ArticleAdminForm, TermAdminForm
from .models import Article, Category, PublicationClock, Status, Term
from .polish import fold


@dataclass
class BulkOutcome:
    """What a bulk status change did: rows changed, rows left alone and why."""

    changed: list = field(default_factory=list)
    unchanged: list = field(default_factory=list)
    skipped: list[tuple[object, list[str]]] = field(default_factory=list)


@transaction.atomic
def publish_entries(*, entries, editor) -> BulkOutcome:
    """Publish every draft in `entries` (terms or articles) that passes full validation.

    A row the database would refuse (e.g. a term without a short definition) is skipped and
    reported with the model's own messages instead of aborting the whole batch. Rows already
    published (live or scheduled) keep their publication date. One revision for the batch;
    published terms are linked into the texts that mention them.
    """
    outcome = BulkOutcome()
    entries = list(entries)
    befores = autolink.states_in_db([e.pk for e in entries if isinstance(e, Term)])
    with reversion.create_revision():
        _revision(editor, "Opublikowano.")
        for entry in entries:
            if entry.status == Status.PUBLISHED:
                outcome.unchanged.append(entry)
                continue
            entry.status = Status.PUBLISHED
            entry.refresh_derived()  # stamps published_at, which the constraints check
            try:
                entry.full_clean()
            except ValidationError as exc:
                outcome.skipped.append((entry, exc.messages))
                continue
            entry.last_editor = editor
            entry.save()
            outcome.changed.append(entry)
        _after_bulk_status(outcome.changed, befores)
    return outcome


@transaction.atomic
def unpublish_entries(*, entries, editor) -> BulkOutcome:
    """Turn every published entry in `entries` back into a draft.

    `published_at` is kept on purpose: re-publishing a withdrawn entry restores its
    original date instead of presenting old content as new in feeds. Texts that linked an
    unpublished term lose the link.
    """
    outcome = BulkOutcome()
    entries = list(entries)
    befores = autolink.states_in_db([e.pk for e in entries if isinstance(e, Term)])
    with reversion.create_revision():
        _revision(editor, "Cofnięto do szkicu.")
        for entry in entries:
            if entry.status == Status.DRAFT:
                outcome.unchanged.append(entry)
                continue
            entry.status = Status.DRAFT
            entry.last_editor = editor
            entry.save()
            outcome.changed.append(entry)
        _after_bulk_status(outcome.changed, befores)
    return outcome


def _after_bulk_status(changed: list, befores: dict) -> None:
    terms = [entry for entry in changed if isinstance(entry, Term)]
    relink_after_term_changes(
        {term.pk: (befores.get(term.pk), autolink.state_of(term)) for term in terms},
        also_terms=terms,
        also_articles=[entry for entry in changed if isinstance(entry, Article)],
    )


# --- Single-entry writes: the admin, the import and the REST API all save through these ------
#
# Each one is a revision (django-reversion: who, when, a comment, the entry with its links)
# and keeps auto-links right (glossary/autolink.py): the entry's own body is linked against
# the published glossary, and a term whose address, tooltip, forms or visibility changed is
# relinked in every text that mentions it or may now mention it.


def _revision(editor, comment: str):
    """The current revision's author and comment (inside `reversion.create_revision()`)."""
    if editor is not None and getattr(editor, "pk", None) is not None:
        reversion.set_user(editor)
    if comment:
        reversion.set_comment(comment)


def relink_after_term_changes(changes: dict, *, also_terms=(), also_articles=()) -> None:
    """Relink what `changes` (term id -> (before, after) link state) concerns, plus the texts
    given, and announce texts whose links changed (their pages show the update)."""
    terms, articles = autolink.texts_affected(changes)
    changed = autolink.relink(terms=[*also_terms, *terms], articles=[*also_articles, *articles])
    for model in (Term, Article):
        pks = [pk for kind, pk in changed if kind is model]
        if pks:
            events.links_changed(model, pks)


@transaction.atomic
def save_term(term: Term, *, editor=None, categories=None, related=None, comment: str = "") -> Term:
    """Save `term` (new or changed) with its categories and related terms when given, as
    one revision, and relink the texts its change concerns."""
    before = autolink.states_in_db([term.pk]).get(term.pk) if term.pk else None
    with reversion.create_revision():
        _revision(editor, comment)
        if editor is not None and getattr(editor, "pk", None) is not None:
            term.last_editor = editor
        term.save()
        if categories is not None:
            term.categories.set(categories)
        if related is not None:
            term.related.set(related)
        relink_after_term_changes({term.pk: (before, autolink.state_of(term))}, also_terms=[term])
        reversion.add_to_revision(term)
    return term


ASKED_AS_MAX = 200


@dataclass
class Attached:
    """What `attach_asked_as` did: the term (as saved, or as it was), the phrase as stored,
    and whether it was added (False: the term already had it, nothing was written)."""

    term: Term
    phrase: str
    added: bool


def clean_asked_phrase(query) -> str:
    """A query as an editor attaches it: trimmed, inner whitespace single, case and diacritics
    as typed; refused (ValidationError with a code) when empty, longer than `ASKED_AS_MAX`
    characters or holding control characters (PostgreSQL refuses NUL in text)."""
    phrase = " ".join(query.split()) if isinstance(query, str) else ""
    if not phrase:
        raise ValidationError("Zapytanie jest puste.", code="empty")
    if len(phrase) > ASKED_AS_MAX:
        raise ValidationError(
            f"Zapytanie ma {len(phrase)} znaków, a dołączyć można najwyżej {ASKED_AS_MAX}.",
            code="too_long",
        )
    if any(unicodedata.category(ch) == "Cc" for ch in phrase):
        raise ValidationError("Zapytanie zawiera znaki sterujące.", code="control_characters")
    return phrase


@transaction.atomic
def attach_asked_as(*, term_id: int, query: str, editor=None) -> Attached:
    """Add `query`, a question readers or agents asked about the term without naming it (the
    analytics report's misses), to the term's "pytano też jako": searched like a synonym from
    the next read on, never auto-linked. A revision like any admin save (`save_term`: change
    events, content version). Already there (compared folded, as the search compares: case,
    Polish letters and spacing aside; with its name, English name and synonyms too):
    nothing is written. The row is locked while it is read and saved, so two
    editors attaching at once both keep their phrase. Raises ValidationError for a bad query
    and Term.DoesNotExist for an unknown term."""
    phrase = clean_asked_phrase(query)
    term = Term.objects.select_for_update().get(pk=term_id)
    names = [term.name, term.english_name, *term.synonyms, *term.asked_as]
    if fold(phrase) in {fold(name) for name in names}:
        return Attached(term, phrase, added=False)
    term.asked_as = [*term.asked_as, phrase]
    comment = f"Dołączono zapytanie „{phrase}” (pytano też jako)."
    return Attached(save_term(term, editor=editor, comment=comment), phrase, added=True)


@transaction.atomic
def save_article(article: Article, *, editor=None, terms=None, comment: str = "") -> Article:
    """Save `article` with its glossary terms when given, as one revision, linked."""
    with reversion.create_revision():
        _revision(editor, comment)
        if editor is not None and getattr(editor, "pk", None) is not None:
            article.last_editor = editor
        article.save()
        if terms is not None:
            article.terms.set(terms)
        autolink.relink(articles=[article])
        reversion.add_to_revision(article)
    return article


@transaction.atomic
def delete_entries(*, entries, editor=None) -> int:
    """Delete terms or articles; their last revisions stay (the admin can recover them), and
    texts that linked a deleted term are relinked. Returns how many were deleted."""
    entries = list(entries)
    with reversion.create_revision():
        _revision(editor, "Usunięto.")
        for entry in entries:
            reversion.add_to_revision(entry)
    term_ids = [entry.pk for entry in entries if isinstance(entry, Term)]
    befores = autolink.states_in_db(term_ids)
    # Who mentions them must be read before the delete cascades over the mention rows.
    terms, articles = autolink.texts_affected({pk: (b, None) for pk, b in befores.items()})
    terms -= set(term_ids)
    for entry in entries:
        entry.delete()
    relink_after_term_changes({}, also_terms=terms, also_articles=articles)
    return len(entries)


@transaction.atomic
def restore_version(version, *, editor=None):
    """Bring an entry back to what `version` (a django-reversion Version of a term or an
    article) holds: its fields and links, as a new revision (nothing is lost: the state
    being replaced is a revision too). Links to entries deleted since are dropped. A deleted
    entry is recreated. Returns the entry."""
    model = version._model
    if model not in (Term, Article):
        raise ValueError("Only terms and articles have revisions here.")
    data = version.field_dict
    entry = model.objects.filter(pk=version.object_id).first() or model(pk=version.object_id)
    many = {field.attname for field in model._meta.many_to_many}
    for name, value in data.items():
        if name not in many and name != "id":
            setattr(entry, name, value)
    entry.full_clean(exclude=[*many, "last_editor"], validate_unique=True)
    when = formats.date_format(timezone.localtime(version.revision.date_created), "j E Y, H:i")
    comment = f"Przywrócono wersję z {when}."
    if model is Term:
        existing = set(
            Term.objects.filter(pk__in=data.get("related", [])).values_list("pk", flat=True)
        )
        return save_term(
            entry,
            editor=editor,
            categories=Category.objects.filter(pk__in=data.get("categories", [])),
            related=[pk for pk in data.get("related", []) if pk in existing and pk != entry.pk],
            comment=comment,
        )
    return save_article(
        entry,
        editor=editor,
        terms=Term.objects.filter(pk__in=data.get("terms", [])),
        comment=comment,
    )


@transaction.atomic
def publish_due(*, now=None) -> list:
    """Announce the entries whose scheduled publication came due since the last call, and
    link the terms among them into the texts that mention them. Pages, feeds and MCP answers
    switch by themselves at that moment (`published()` compares with the clock, caches key on
    the next scheduled time); what only a write can do — change events for open pages and MCP
    subscribers, and stored auto-links — happens here. Run it every minute
    (`manage.py publish_scheduled`); the first run only starts the clock. Returns the
    entries announced."""
    now = now or timezone.now()
    clock, created = PublicationClock.objects.select_for_update().get_or_create(
        id=1, defaults={"processed_until": now}
    )
    if created or clock.processed_until >= now:
        return []
    since = clock.processed_until
    due: list = []
    for model in (Term, Article):
        # Scheduled: last saved before its publication time. An entry published at once
        # (published_at stamped on save, updated_at just after) was announced by that save.
        due += list(
            model.objects.published(now=now)
            .filter(published_at__gt=since, updated_at__lt=F("published_at"))
            .order_by("published_at", "id")
        )
    term_states = autolink.states_in_db([entry.pk for entry in due if isinstance(entry, Term)])
    relink_after_term_changes({pk: (None, state) for pk, state in term_states.items()})
    changes = [
        events.Change(
            "term" if isinstance(entry, Term) else "article", entry.slug, "published", True
        )
        for entry in due
    ]
    transaction.on_commit(lambda: events.publish(changes))
    clock.processed_until = now
    clock.save(update_fields=["processed_until"])
    return due


# --- The REST API's writes: the admin form's rules, then the services above -----------------
# The same rules as the admin, from the same place: the admin's ModelForm (input adaptation:
# slug from the name, an empty publication date meaning "now", no self-links) over the model's
# fields, clean() and constraints (uniqueness, the short definition a published term needs);
# then `save_term`/`save_article`, so a REST write is a revision and relinks like an admin save.


def change_comment(form, *, created: bool, via: str = "", sent=None) -> str:
    """A revision's comment: "Dodano." or which fields changed, by their labels. `sent`
    (the field names a REST client sent) limits the changes to what the writer touched: the
    values it did not send were filled in from the instance and are not its changes."""
    suffix = f" ({via})" if via else ""
    if created:
        return f"Dodano{suffix}."
    labels = [
        str(form.fields[name].label)
        for name in form.changed_data
        if name in form.fields and (sent is None or name in sent)
    ]
    if not labels:
        return f"Zapisano bez zmian{suffix}."
    return f"Zmieniono{suffix}: {', '.join(labels)}."


def _validated_form(form_class, instance, changes: dict):
    """`changes` (model field names; absent fields keep their values) applied through
    `form_class`; raises ValidationError with every problem by field, changing nothing."""
    from django.forms.models import model_to_dict

    data = model_to_dict(instance, fields=form_class._meta.fields)
    for name, value in list(data.items()):
        if isinstance(value, list):  # M2M: instances -> ids, as a form submission carries them
            data[name] = [getattr(item, "pk", item) for item in value]
    data.update(changes)
    form = form_class(data=data, instance=instance)
    if not form.is_valid():
        raise ValidationError(form.errors.as_data())
    return form


def _conflict(exc: IntegrityError) -> ValidationError:
    return ValidationError(
        "Ktoś właśnie zapisał wpis o tej samej nazwie albo slugu; sprawdź i spróbuj ponownie.",
        code="conflict",
    )


def write_term(*, editor, changes: dict, term: Term | None = None, via: str = "REST API") -> Term:
    """Create (`term` None) or update one term from `changes` (the model's field names:
    `name`, `slug`, `short_definition`, `body`, `synonyms`, `english_name`,
    `english_definition`, `asked_as`, `categories` and `related` as ids, `status`,
    `published_at`), validated like the admin's form, saved by `save_term`. The
    term's `warnings` list what the admin would have asked to confirm."""
    created = term is None
    form = _validated_form(TermAdminForm, term or Term(), changes)
    try:
        with transaction.atomic():
            saved = save_term(
                form.save(commit=False),
                editor=editor,
                categories=form.cleaned_data.get("categories"),
                related=form.cleaned_data.get("related"),
                comment=change_comment(form, created=created, via=via, sent=changes),
            )
    except IntegrityError as exc:  # a concurrent write took the slug or the name first
        raise _conflict(exc) from exc
    # What the admin would have asked the editor to confirm (TermAdminForm.warnings).
    saved.warnings = form.warnings
    return saved


def write_article(
    *, editor, changes: dict, article: Article | None = None, via: str = "REST API"
) -> Article:
    """Create or update one article (`title`, `slug`, `lead`, `body`, `terms` as ids, `series`
    id, `series_order`, `status`, `published_at`, `author` id). A new article's author is the
    editor unless `changes` names one, as in the admin. Saved by `save_article`."""
    created = article is None
    if created:
        article = Article()
        changes = {"author": getattr(editor, "pk", None), **changes}
    form = _validated_form(ArticleAdminForm, article, changes)
    try:
        with transaction.atomic():
            return save_article(
                form.save(commit=False),
                editor=editor,
                terms=form.cleaned_data.get("terms"),
                comment=change_comment(form, created=created, via=via, sent=changes),
            )
    except IntegrityError as exc:
        raise _conflict(exc) from exc
