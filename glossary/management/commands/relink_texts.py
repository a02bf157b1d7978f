"""`manage.py relink_texts`: auto-link every term body and article again.

The services keep links right on every edit; this is for what they cannot see — content
written with raw SQL or a shell's `QuerySet.update()`, a database restored from a dump taken
before auto-linking, or a change to the linking rules after a deploy.
"""

from django.core.management.base import BaseCommand
from django.db import transaction

from glossary import autolink, events
from glossary.models import Article, Term

_BATCH = 5000  # large enough for autolink.relink to use its worker processes


class Command(BaseCommand):
    help = "Auto-link every term body and article against the published glossary again."

    def handle(self, *args, verbosity, **options):
        autolink.clear_cache()
        changed_total = 0
        for model in (Term, Article):
            ids = list(model.objects.order_by("id").values_list("id", flat=True))
            for start in range(0, len(ids), _BATCH):
                with transaction.atomic():
                    linker = autolink.current_linker()
                    changed = autolink.relink(
                        **{"terms" if model is Term else "articles": ids[start : start + _BATCH]},
                        linker=linker,
                    )
                    if changed:
                        events.links_changed(model, [pk for _model, pk in changed])
                changed_total += len(changed)
                if verbosity >= 2:
                    done = min(start + _BATCH, len(ids))
                    self.stderr.write(f"{model._meta.verbose_name_plural}: {done}/{len(ids)}")
        if verbosity >= 1:
            self.stdout.write(f"Zmienione odnośniki w tekstach: {changed_total}.")
