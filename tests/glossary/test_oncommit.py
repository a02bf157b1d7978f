"""The on_commit seam (glossary/oncommit.py): `pending()` reads Django's list of a
transaction's commit callbacks. If an upgrade changes that list's layout, these fail by name
(and glossary/events.py would otherwise reuse a rolled-back batch or start a second one)."""

import pytest
from django.db import DEFAULT_DB_ALIAS, transaction

from glossary import oncommit

pytestmark = pytest.mark.django_db(transaction=True)


def callback():
    pass


def test_a_registered_callback_is_pending_until_commit():
    """Registered in a transaction: pending; after the commit ran it: not pending."""
    ran = []
    with transaction.atomic():
        transaction.on_commit(callback)
        transaction.on_commit(lambda: ran.append(1))
        assert oncommit.pending(callback, using=DEFAULT_DB_ALIAS)
        assert not oncommit.pending(print, using=DEFAULT_DB_ALIAS)
    assert ran == [1]
    assert not oncommit.pending(callback, using=DEFAULT_DB_ALIAS)


def test_a_rolled_back_savepoint_drops_its_callback():
    """A callback registered inside a savepoint that rolls back is no longer pending, while
    one registered outside it still is."""
    with transaction.atomic():
        transaction.on_commit(print)
        with pytest.raises(RuntimeError), transaction.atomic():
            transaction.on_commit(callback)
            assert oncommit.pending(callback, using=DEFAULT_DB_ALIAS)
            raise RuntimeError
        assert not oncommit.pending(callback, using=DEFAULT_DB_ALIAS)
        assert oncommit.pending(print, using=DEFAULT_DB_ALIAS)
