"""Fixtures shared by the glossary tests."""

import pytest


@pytest.fixture
def staff_client(client, django_user_model):
    """A client logged in as a staff member (who may see drafts on the public pages)."""
    user = django_user_model.objects.create_user("redaktor", password="x-secret-1", is_staff=True)
    client.force_login(user)
    return client
