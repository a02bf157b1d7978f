"""Content-change events: how readers' open pages and agents' subscriptions learn of an edit.

Every write path ends here: model signals (`glossary/signals.py`) for the admin, services and
any ORM save, delete or M2M change, and explicit calls from bulk paths that send no signals
(the import). Changes are collected per transaction, keyed by entry, and sent once after the
transaction commits, so a rolled-back edit says nothing and an admin save (row, categories,
related terms) says one thing. Only entries the public could see before or after the change
produce events: a draft edited as a draft stays silent, so streams cannot be used to watch
unpublished work.

Events go through django-eventstream's `send_event` to storage-backed channels (a burst loses
nothing; a reconnecting client replays what it missed) and, with `EVENTSTREAM_REDIS`, through
Redis to every server process:

- `term-<slug>` / `article-<slug>`: event `updated` for the page of that entry;
- `glossary`: event `change` for every entry change, one id sequence for all of them (the MCP
  streams' source, resumable by that id);
- `glossary-bulk`: event `bulk` when one transaction changed more entries than `BULK_LIMIT`
  (a large import); listeners treat it as "anything of that kind may have changed".

Each payload is JSON: `{"kind", "slug", "change", "list_changed"}` where `change` is one of
`updated`, `published`, `unpublished`, `deleted`, and `list_changed` says whether the set of
published entries changed.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db import DEFAULT_DB_ALIAS, transaction
from django.db.models import Model

from . import oncommit
from .models import NEW, UNKNOWN, Article, Term

logger = logging.getLogger(__name__)

CHANGES_CHANNEL = "glossary"
BULK_CHANNEL = "glossary-bulk"
ENTRY_EVENT = "updated"
CHANGE_EVENT = "change"
BULK_EVENT = "bulk"
KINDS = ("term", "article")
# Above this many changed entries in one transaction, per-entry events (two stored rows each)
# would cost more than they tell: one `bulk` event replaces them.
BULK_LIMIT = 100

# What was true of an entry before the transaction touched it: (slug, was public), or NEW and
# UNKNOWN (glossary.models, `Publishable.before_state`), or SAME.
SAME = "same"  # only its links changed: visibility and slug as they are now

_CHUNK = 500


def entry_channel(kind: str, slug: str) -> str:
    return f"{kind}-{slug}"


@dataclass(frozen=True, slots=True)
class Change:
    kind: str
    slug: str
    change: str  # "updated" | "published" | "unpublished" | "deleted"
    list_changed: bool

    def as_data(self) -> dict:
        return {
            "kind": self.kind,
            "slug": self.slug,
            "change": self.change,
            "list_changed": self.list_changed,
        }


@dataclass(slots=True)
class _Pending:
    before: object  # NEW | SAME | UNKNOWN | (slug, was_public)
    deleted_slug: str | None = None


@dataclass
class _Batch:
    """The entries one transaction touched, flushed once when it commits."""

    using: str
    entries: dict[tuple[str, int], _Pending] = field(default_factory=dict)
    flushed: bool = False

    def touch(self, kind: str, pk: int, before, *, deleted_slug: str | None = None) -> None:
        pending = self.entries.get((kind, pk))
        if pending is None:
            pending = self.entries[kind, pk] = _Pending(before)
        elif pending.before is SAME and before is not SAME:
            # A link change came first; the row's own before-state is the better one.
            pending.before = before
        if deleted_slug is not None:
            pending.deleted_slug = deleted_slug

    def flush(self) -> None:
        if self.flushed:
            return
        self.flushed = True
        if len(self.entries) > BULK_LIMIT:  # a large import: not worth a query per chunk
            kinds = sorted({kind for kind, _ in self.entries})
            publish_bulk(kinds=kinds, count=len(self.entries), list_changed=True)
            return
        try:
            changes = resolve(self.entries, using=self.using)
        except Exception:
            logger.exception("Could not work out content-change events")
            return
        publish(changes)


def _kind_of(model) -> str | None:
    if issubclass(model, Term):
        return "term"
    if issubclass(model, Article):
        return "article"
    return None


def _batch(using: str) -> _Batch:
    """The current transaction's batch, starting one (and its on_commit flush) if needed.

    A batch is current while its flush is still registered on the connection: a rollback
    (of the transaction or of the savepoint that registered it) discards the callback, and
    with it every change collected for it.
    """
    connection = transaction.get_connection(using)
    batch = getattr(connection, "_glossary_events_batch", None)
    if batch is None or batch.flushed or not oncommit.pending(batch.flush, using=using):
        batch = _Batch(using)
        connection._glossary_events_batch = batch
        if connection.in_atomic_block:
            transaction.on_commit(batch.flush, using=using)
    return batch


def _touch(kind: str, pk: int, before, *, using: str, deleted_slug: str | None = None) -> None:
    connection = transaction.get_connection(using)
    batch = _batch(using)
    batch.touch(kind, pk, before, deleted_slug=deleted_slug)
    if not connection.in_atomic_block:
        batch.flush()  # autocommit: the change is already committed


def entry_saved(instance: Model, *, created: bool, using: str = DEFAULT_DB_ALIAS) -> None:
    kind = _kind_of(type(instance))
    if kind is None:
        return
    before = NEW if created else getattr(instance, "_glossary_before", UNKNOWN)
    _touch(kind, instance.pk, before, using=using)
    instance._glossary_before = instance.before_state()


def entry_deleted(instance: Model, *, using: str = DEFAULT_DB_ALIAS) -> None:
    kind = _kind_of(type(instance))
    if kind is None or instance.pk is None:
        return
    before = getattr(instance, "_glossary_before", UNKNOWN)
    _touch(kind, instance.pk, before, using=using, deleted_slug=instance.slug)


def links_changed(model, pks: Iterable[int], *, using: str = DEFAULT_DB_ALIAS) -> None:
    """Entries whose links (categories, related terms, article terms) changed."""
    kind = _kind_of(model)
    if kind is None:
        return
    for pk in pks:
        _touch(kind, pk, SAME, using=using)


def entries_changed(entries: Iterable[Model], *, using: str = DEFAULT_DB_ALIAS) -> None:
    """For write paths that bypass model signals (`bulk_create`, `bulk_update`, `update()`).

    Pass the instances written: each one's state when it was loaded (or NEW for instances
    built in memory) is its before-state. Call it inside the writing transaction; the events
    go out when it commits.
    """
    for instance in entries:
        kind = _kind_of(type(instance))
        if kind is None or instance.pk is None:
            continue
        _touch(kind, instance.pk, getattr(instance, "_glossary_before", NEW), using=using)
        instance._glossary_before = instance.before_state()


def resolve(entries: dict[tuple[str, int], _Pending], *, using: str) -> list[Change]:
    """Compare each touched entry's before-state with the committed database (one query per
    kind and chunk) and say what the public saw change."""
    models = {"term": Term, "article": Article}
    changes: list[Change] = []
    for kind in KINDS:
        pks = [pk for (k, pk), pending in entries.items() if k == kind]
        now: dict[int, tuple[str, bool]] = {}
        for start in range(0, len(pks), _CHUNK):
            chunk = pks[start : start + _CHUNK]
            manager = models[kind].objects.db_manager(using)
            public = set(manager.published().filter(pk__in=chunk).values_list("pk", flat=True))
            for pk, slug in manager.filter(pk__in=chunk).values_list("pk", "slug"):
                now[pk] = (slug, pk in public)
        for pk in pks:
            changes.extend(_compare(kind, entries[kind, pk], now.get(pk)))
    return changes


def _compare(kind: str, pending: _Pending, after: tuple[str, bool] | None) -> list[Change]:
    before = pending.before
    if after is None:  # gone
        slug = pending.deleted_slug or (before[0] if isinstance(before, tuple) else None)
        was_public = before[1] if isinstance(before, tuple) else before is UNKNOWN
        if slug is None or not was_public:
            return []
        return [Change(kind, slug, "deleted", True)]
    slug, is_public = after
    if before is SAME:
        return [Change(kind, slug, "updated", False)] if is_public else []
    if before is NEW:
        return [Change(kind, slug, "published", True)] if is_public else []
    if before is UNKNOWN:
        return [Change(kind, slug, "updated" if is_public else "unpublished", True)]
    old_slug, was_public = before
    if not was_public:
        return [Change(kind, slug, "published", True)] if is_public else []
    if not is_public:
        return [Change(kind, old_slug, "unpublished", True)]
    if old_slug != slug:  # a new URL: the old address is gone, the new one appears
        return [Change(kind, old_slug, "deleted", True), Change(kind, slug, "published", True)]
    return [Change(kind, slug, "updated", False)]


def publish(changes: list[Change]) -> None:
    """Send the events for committed changes. Never raises: the edit is already saved, and a
    broken event store or Redis must not turn an editor's save into an error page."""
    if not changes:
        return
    if len(changes) > BULK_LIMIT:
        publish_bulk(
            kinds=sorted({change.kind for change in changes}),
            count=len(changes),
            list_changed=any(change.list_changed for change in changes),
        )
        return
    sends = []
    for change in changes:
        data = change.as_data()
        sends.append((entry_channel(change.kind, change.slug), ENTRY_EVENT, data))
        sends.append((CHANGES_CHANNEL, CHANGE_EVENT, data))
    _send(sends)


def publish_bulk(*, kinds: list[str], count: int, list_changed: bool) -> None:
    """One event for many changes: listeners treat every entry of `kinds` as changed."""
    data = {"kinds": kinds, "count": count, "list_changed": list_changed}
    _send([(CHANGES_CHANNEL, BULK_EVENT, data), (BULK_CHANNEL, BULK_EVENT, data)])


def _send(sends: list[tuple[str, str, dict]]) -> None:
    from django_eventstream import send_event

    for channel, event_type, data in sends:
        try:
            send_event(channel, event_type, data)
        except Exception:
            logger.exception("Could not send %s event on channel %s", event_type, channel)
