"""Model signals that feed `glossary.events`: every ORM write of a term or article (admin,
services, shell) reaches readers and agents without each write path remembering to say so.

Bulk writes (`bulk_create`, `bulk_update`, `QuerySet.update()`) send no signals; the code that
uses them calls `events.entries_changed()` itself (the import does).
"""

from django.db.models.signals import m2m_changed, post_delete, post_save
from django.dispatch import Signal, receiver

from . import events
from .models import Article, Term

_LINK_ACTIONS = frozenset(("post_add", "post_remove", "post_clear"))


@receiver(post_save, sender=Term)
@receiver(post_save, sender=Article)
def entry_saved(sender, instance, created, raw=False, using=None, **kwargs):
    if raw:  # loaddata: fixtures, not edits
        return
    events.entry_saved(instance, created=created, using=using)


@receiver(post_delete, sender=Term)
@receiver(post_delete, sender=Article)
def entry_deleted(sender, instance, using=None, **kwargs):
    events.entry_deleted(instance, using=using)


@receiver(m2m_changed, sender=Term.categories.through)
@receiver(m2m_changed, sender=Term.related.through)
@receiver(m2m_changed, sender=Article.terms.through)
def links_changed(sender, instance, action, model, pk_set, using=None, **kwargs):
    """Both ends of a changed link show it on their pages (categories have no pages)."""
    if action not in _LINK_ACTIONS:
        return
    events.links_changed(type(instance), [instance.pk], using=using)
    if pk_set:
        events.links_changed(model, pk_set, using=using)


# The search page answered a reader's query (glossary.views.search_view): `query`, `results`
# (a search.SearchResults) and `seconds`. Site search analytics listen (analytics/apps.py); the
# glossary does not know who does.
site_searched = Signal()
