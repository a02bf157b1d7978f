"""Shared fixtures. The suite runs twice in `make test`: on a throwaway PostgreSQL cluster
(the real database) and on SQLite (the embedded default); `@pytest.mark.postgres` tests are
skipped on the latter."""

import pytest
from django.db import connection


def pytest_collection_modifyitems(config, items):
    if connection.vendor != "postgresql":
        skip = pytest.mark.skip(reason="needs PostgreSQL (run under scripts/with-postgres)")
        for item in items:
            if "postgres" in item.keywords:
                item.add_marker(skip)


def pytest_report_header(config):
    return f"database: {connection.vendor} ({connection.settings_dict['NAME']})"
