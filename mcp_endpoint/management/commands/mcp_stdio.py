"""`python manage.py mcp_stdio`: the stdio transport, for agents that launch local servers.

Before it reads a line it checks that its database exists and is fully migrated: a client
launches the command with a configuration typed by hand, and a mistyped database path must
fail at once with a message on stderr and a non-zero exit (which clients show), not answer
`initialize` and then -32603 for every call. SQLite would also create an empty file at the
mistyped path on first connect, so a missing file is refused before connecting.
"""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.migrations.executor import MigrationExecutor

from mcp_endpoint.transports.stdio import serve


def check_database(alias: str = DEFAULT_DB_ALIAS) -> None:
    """CommandError naming the database when it is missing, unreachable or not migrated."""
    connection = connections[alias]
    name = connection.settings_dict["NAME"]
    missing = connection.vendor == "sqlite" and not connection.is_in_memory_db()
    if missing and not Path(str(name)).is_file():
        raise CommandError(
            f"The SQLite database {name} does not exist. Check DATABASE_URL in the "
            "MCP client's configuration, or create it with: python manage.py migrate"
        )
    try:
        executor = MigrationExecutor(connection)
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as exc:
        raise CommandError(
            f"Cannot open the database {name!s} ({exc.__class__.__name__}: "
            f"{str(exc).strip().splitlines()[0] if str(exc).strip() else 'no details'}). "
            "Check DATABASE_URL in the MCP client's configuration."
        ) from exc
    if pending:
        raise CommandError(
            f"The database {name!s} is not migrated ({len(pending)} migrations not applied, "
            f"first {pending[0][0].app_label}.{pending[0][0].name}). "
            "Run: python manage.py migrate"
        )


class Command(BaseCommand):
    help = (
        "Serve the glossary's MCP server over stdio: newline-delimited JSON-RPC on stdin and "
        "stdout (logs go to stderr). For agents that launch local servers, e.g. Claude Desktop. "
        "Refuses to start on a missing or unmigrated database."
    )
    # Startup speed matters (clients launch the process on demand); `check` covers this.
    requires_system_checks = []

    def handle(self, *args, **options):
        check_database()
        protocol_out = sys.stdout.buffer
        # stdout belongs to the protocol: anything else that prints goes to stderr instead.
        sys.stdout = sys.stderr
        try:
            serve(sys.stdin.buffer, protocol_out)
        except KeyboardInterrupt:
            pass
        finally:
            sys.stdout = sys.__stdout__
