"""Per-process caches of published content, keyed by `selectors.content_state()`.

The key changes whenever the content does (database triggers bump the version on every write
to a glossary table; the next scheduled publication time is part of it), in every process at
once, so entries never need expiring or deleting: stale keys are simply never asked for again
and fall out of the bounded LRU. Users: the reader's term page (glossary/views.py) and the MCP
result cache (mcp_endpoint/features/cache.py).
"""

import threading
from collections import OrderedDict


class LRU:
    """A bounded mapping that forgets the least recently used entry; thread-safe (a server
    worker may run several threads)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)
