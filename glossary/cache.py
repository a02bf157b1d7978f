"""The name mcp_endpoint/ imports from before glossary/db/ existed; import `LRU` from
`glossary.db.cache` instead."""

from .db.cache import LRU  # noqa: F401
