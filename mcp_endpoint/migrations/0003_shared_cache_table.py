"""The database cache's table (CACHES["default"] without REDIS_URL: the MCP rate limits share
their counts through it), made by `migrate` so that no deployment step can forget it."""

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor):
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("mcp_endpoint", "0002_mcpsession_stream_owner")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
