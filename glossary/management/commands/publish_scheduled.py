"""`manage.py publish_scheduled`: announce scheduled publications as they come due.

Pages, feeds and MCP answers switch by themselves when a `published_at` passes (the
visibility rule compares with the clock and every cache key holds the next scheduled time);
the change events for open pages and MCP subscribers, and the auto-links to a term that has
just appeared, need a write, which this command makes (`services.publish_due`). Run it every
minute from cron or a systemd timer, or keep it running with `--every 60`.
"""

import time

from django.core.management.base import BaseCommand, CommandError

from glossary.services import publish_due


class Command(BaseCommand):
    help = "Send change events and auto-links for entries whose scheduled publication came due."

    def add_arguments(self, parser):
        parser.add_argument(
            "--every",
            type=int,
            default=0,
            metavar="SECONDS",
            help="keep running and check every SECONDS (default: check once and exit)",
        )

    def handle(self, *args, every, verbosity, **options):
        if every < 0:
            raise CommandError("--every musi być liczbą sekund większą od zera.")
        while True:
            due = publish_due()
            if verbosity >= 1 and due:
                names = ", ".join(str(entry) for entry in due)
                self.stdout.write(f"Opublikowane zgodnie z planem: {names}.")
            if not every:
                return
            time.sleep(every)
