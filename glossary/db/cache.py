"""The one bounded cache of a process: `LRU`, which every per-process cache in glossary/ uses.

Two kinds of users. Caches of published content (the reader's pages, glossary/views.py; the
MCP result cache, mcp_endpoint/features/cache.py) are keyed by `selectors.content_state()`:
the key changes whenever the content does (database triggers bump the version on every write
to a glossary table; the next scheduled publication time is part of it), in every process at
once, so entries never need expiring or deleting: stale keys are simply never asked for again
and fall out. Caches of compiled statements and texts (glossary/db/, glossary/selectors/,
glossary/search/statements.py) are keyed by a statement's shape: a fixed, small set in normal
use, bounded so that unusual input cannot make a process grow without end.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable


class LRU:
    """A bounded mapping that forgets the least recently used entry; thread-safe (a server
    worker may run several threads). `on_evict(value)` is called for each entry it forgets
    (a kept cursor is closed), after the entry has left the mapping, outside the lock."""

    def __init__(self, size: int, *, on_evict: Callable | None = None) -> None:
        self.size = size
        self.on_evict = on_evict
        self._data: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key, default=None):
        # No lock: each OrderedDict operation is atomic, and an entry another thread evicts
        # between the two is simply a miss. Reads are the hot path (kept cursors, statement
        # shapes, joined texts: several per request).
        data = self._data
        try:
            value = data[key]
            data.move_to_end(key)
        except KeyError:
            return default
        return value

    def put(self, key, value) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            evicted = self._evict()
        self._forget(evicted)

    def setdefault(self, key, value):
        """The value kept for `key`, storing `value` first if there is none (two threads
        that built one at the same time end up using the same one)."""
        with self._lock:
            kept = self._data.get(key)
            if kept is None:
                kept = self._data[key] = value
            self._data.move_to_end(key)
            evicted = self._evict()
        self._forget(evicted)
        return kept

    def _evict(self) -> list:
        evicted = []
        while len(self._data) > self.size:
            evicted.append(self._data.popitem(last=False)[1])
        return evicted

    def _forget(self, values: list) -> None:
        if self.on_evict is not None:
            for value in values:
                self.on_evict(value)

    def clear(self) -> None:
        with self._lock:
            values = list(self._data.values())
            self._data.clear()
        self._forget(values)

    def items(self) -> list[tuple]:
        """A snapshot of the entries, least recently used first."""
        with self._lock:
            return list(self._data.items())

    def __contains__(self, key) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)
