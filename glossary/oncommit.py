"""Whether a callback registered with `transaction.on_commit` is still due to run.

glossary/events.py collects a transaction's changes in a batch whose flush is registered with
`on_commit`; when the transaction (or the savepoint that registered the flush) rolls back,
Django drops the callback, and the batch must not be reused. Django offers no public way to
ask whether a callback is still pending, so this reads `connection.run_on_commit`, a list of
`(savepoint ids, callback, robust)` tuples, here and nowhere else.
tests/glossary/test_oncommit.py fails by name if an upgrade changes that layout.
"""

from django.db import transaction


def pending(callback, *, using: str) -> bool:
    """True while `callback` is registered on `using`'s current transaction."""
    connection = transaction.get_connection(using)
    return any(entry[1] == callback for entry in connection.run_on_commit)
