"""The glossary server's result cache: answers to read-only calls, kept per process and keyed
by what the content looks like.

Why: the glossary changes at editorial pace while agents ask the same things again and again,
and a cached answer costs one indexed query instead of the selectors' statements and the
Python that builds the result (bench/mcp.py). The key starts with `selectors.content_state()`:
the content version that database triggers bump on every write to a glossary table (any
path: admin, import, raw SQL) plus the next scheduled publication times, read once per call,
so every process sees an edit or a publication on its very next request and no entry ever
needs expiring (old keys simply stop being asked for and fall out of the LRU); the state
also holds the site's canonical domain (glossary/site.py), which every URL in an answer
starts with. The rest of the key is what else shapes the answer: era and protocol version,
the method and its params without `_meta` (whose fields change nothing for a call without a stream).

Which calls may be answered from here is the server's decision (`Server.cacheable`: tools,
prompts and templates declared `cacheable`, no channel to the client, no MRTR input), made
on validated params only. Entries are stored serialized and decoded per hit, so no caller can
change one. `MCP_RESULT_CACHE_SIZE=0` turns the cache off.

A call is cached from its second sight (`admits`): the first time this process sees a call,
it runs in full without reading the content state, which only a lookup or a store needs.
Why: an agent mostly asks what it has not asked before, and a first call paid the state's
round trip for nothing (a lookup that must miss, then an entry nobody may ask for again):
a third of a cold `get_term` with the cache on (docs/benchmarks.md, the distinct-key reads).
What is asked again is cached from its second call and answered from the cache from its third;
a remembered call costs a hash in a bounded LRU of `SEEN_PER_ENTRY` times the cache's size.
"""

import orjson
from django.conf import settings

from glossary import selectors
from glossary.db.cache import LRU

from ..core import protocol as p

# Calls remembered as seen, per cached entry: a call asked again within this many distinct
# calls is cached on its second sight.
SEEN_PER_ENTRY = 4


class ContentResultCache:
    def __init__(self, size: int) -> None:
        self.results = LRU(max(size, 1))
        # Calls seen once, without their content state (`admits`).
        self.seen = LRU(max(size, 1) * SEEN_PER_ENTRY)

    def admits(self, call) -> bool:
        """Whether `call` (a key without the content state) was seen before; remembers it.
        A call seen for the first time is neither looked up nor stored.

        Only the key's hash is remembered: a key holds the call's params (up to
        `MCP_MAX_BODY_BYTES`), so keeping keys would let distinct large requests fill memory.
        Two calls sharing a hash only make the second read the content state for a lookup
        that misses."""
        digest = hash(call)
        if self.seen.get(digest) is not None:
            return True
        self.seen.put(digest, True)
        return False

    def enabled(self) -> bool:
        return settings.MCP_RESULT_CACHE_SIZE > 0

    def key(self, method: str, params: dict, ctx):
        """The cache key of this call (reading the content state: one query), or None when
        the call must run after all."""
        if not self.enabled():
            return None
        try:
            canonical = orjson.dumps(
                {k: v for k, v in params.items() if k != p.META}, option=orjson.OPT_SORT_KEYS
            )
        except TypeError:  # e.g. an integer beyond 64 bits: not worth a special case
            return None
        call = (ctx.era, ctx.protocol_version, method, canonical)
        if not self.admits(call):
            return None
        # Read before the data, never after: an edit between the two makes the entry a key
        # nobody asks for again, never a stale answer under the new state.
        state = selectors.content_state()
        if state is None:
            return None
        return (state, *call)

    def get(self, key) -> dict | None:
        encoded = self.results.get(key)
        if encoded is None:
            return None
        return orjson.loads(encoded)

    def put(self, key, result: dict) -> None:
        self.results.put(key, orjson.dumps(result))
