"""The names api/ and tests import from before glossary/db/ existed; import from
`glossary.db.prepared` and `glossary.db.cursors` instead."""

from .db.cursors import _CURSORS, joined, kept_cursor  # noqa: F401
from .db.prepared import Prepared  # noqa: F401
