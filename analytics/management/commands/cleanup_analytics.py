from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from analytics.reports import delete_older_than


class Command(BaseCommand):
    help = (
        "Delete recorded lookups (agents' MCP calls, site searches) older than the retention "
        "period: ANALYTICS_RETENTION_DAYS, or --days. Run it daily (cron or a systemd timer)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--days", type=int, default=None,
            help="keep this many days (default: ANALYTICS_RETENTION_DAYS)",
        )  # fmt: skip

    def handle(self, *args, days=None, **options):
        days = settings.ANALYTICS_RETENTION_DAYS if days is None else days
        if days < 1:
            raise CommandError("--days must be at least 1 (0 would delete everything)")
        deleted = delete_older_than(days=days)
        self.stdout.write(f"Deleted {deleted} lookup(s) older than {days} day(s).")
