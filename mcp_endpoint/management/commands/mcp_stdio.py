"""`python manage.py mcp_stdio`: the stdio transport, for agents that launch local servers."""

import sys

from django.core.management.base import BaseCommand

from mcp_endpoint.transports.stdio import serve


class Command(BaseCommand):
    help = (
        "Serve the glossary's MCP server over stdio: newline-delimited JSON-RPC on stdin and "
        "stdout (logs go to stderr). For agents that launch local servers, e.g. Claude Desktop."
    )
    # Startup speed matters (clients launch the process on demand); `check` covers this.
    requires_system_checks = []

    def handle(self, *args, **options):
        protocol_out = sys.stdout.buffer
        # stdout belongs to the protocol: anything else that prints goes to stderr instead.
        sys.stdout = sys.stderr
        try:
            serve(sys.stdin.buffer, protocol_out)
        except KeyboardInterrupt:
            pass
        finally:
            sys.stdout = sys.__stdout__
