"""Fixtures for the REST API tests: users with and without the Editors group, their
application passwords, and clients that send them."""

import base64
import importlib
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import Group, User

from api.models import ApplicationPassword

API = "/wp-json/webflux/v1"


def basic(username: str, password: str) -> dict:
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"HTTP_AUTHORIZATION": f"Basic {token}"}


def editors_group() -> Group:
    """The Editors group of glossary migration 0002 (recreated with the same permissions after
    a transactional test flushed the database)."""
    from django.apps import apps
    from django.db import connection

    migration = importlib.import_module("glossary.migrations.0002_editors_group")
    schema_editor = SimpleNamespace(connection=connection)
    if not Group.objects.filter(name=migration.GROUP_NAME).exists():
        migration.create_editors_group(apps, schema_editor)
    return Group.objects.get(name=migration.GROUP_NAME)


@pytest.fixture
def editor(db):
    user = User.objects.create_user("redaktor", password="x-unused-account-password", is_staff=True)
    user.groups.add(editors_group())
    return user


@pytest.fixture
def reader(db):
    """A logged-in account with no content permissions."""
    return User.objects.create_user("czytelnik", password="x-unused-account-password")


@pytest.fixture
def editor_auth(editor, settings):
    """Basic-auth headers of the editor's application password (DEBUG on, as in tests)."""
    settings.DEBUG = True
    _row, password = ApplicationPassword.objects.issue(user=editor, name="skrypt")
    return basic(editor.username, password)


@pytest.fixture
def reader_auth(reader, settings):
    settings.DEBUG = True
    _row, password = ApplicationPassword.objects.issue(user=reader, name="skrypt")
    return basic(reader.username, password)


@pytest.fixture(autouse=True)
def _fresh_throttles():
    from django.core.cache import caches

    caches["api"].clear()
    yield
    caches["api"].clear()
