"""Delete legacy MCP sessions idle for longer than MCP_SESSION_IDLE_SECONDS.

Expired sessions already answer 404 (and are deleted when a client names one); this command
clears the ones nobody comes back for. Run it from cron or a scheduler, e.g. hourly.
"""

from django.core.management.base import BaseCommand

from mcp_endpoint.transports import sessions


class Command(BaseCommand):
    help = "Delete MCP sessions idle past MCP_SESSION_IDLE_SECONDS."

    def handle(self, *args, **options):
        deleted = sessions.cleanup()
        self.stdout.write(f"Usunięto wygasłe sesje MCP: {deleted}.")
