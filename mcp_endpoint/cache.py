"""Answers to read-only MCP calls, kept per process and keyed by what the content looks like.

Why: the glossary changes at editorial pace while agents ask the same things again and again,
and a cached answer costs one indexed query instead of the selectors' statements and the
Python that builds the result (bench/mcp.py). The key starts with `selectors.content_state()`:
the content version that database triggers bump on every write to a glossary table (any
path: admin, import, raw SQL) plus the next scheduled publication times, read once per call,
so every process sees an edit or a publication on its very next request and no entry ever
needs expiring (old keys simply stop being asked for and fall out of the LRU). The rest of
the key is what else shapes the answer: era and protocol version, the site URL, the method
and its params without `_meta` (whose fields change nothing for a call without a stream).

Only the glossary's own read-only declarations are cached, and only for calls that cannot
talk to the client (no `notify`/`send_request`: live calls and stdio run normally) and carry
no MRTR input; conformance fixtures, sessions, subscriptions and anything with side effects
never are. Entries are stored serialized and decoded per hit, so no caller can change one.
"""

import threading

import orjson
from django.conf import settings

from glossary import selectors
from glossary.cache import LRU

from . import protocol as p
from .documents import ARTICLE_URI, TERM_URI
from .registry import PROMPTS, TOOLS

# Calls whose answer depends only on their params and the published content; the allowed
# params keys (anything else, e.g. MRTR `inputResponses`/`requestState`, disables caching).
PARAMS = {
    p.TOOLS_CALL: frozenset({"name", "arguments", p.META}),
    p.RESOURCES_READ: frozenset({"uri", p.META}),
    p.RESOURCES_LIST: frozenset({"cursor", p.META}),
    p.PROMPTS_GET: frozenset({"name", "arguments", p.META}),
}
GLOSSARY_URIS = (TERM_URI, ARTICLE_URI)
# The glossary's own declarations are those made in these modules (not the fixtures').
GLOSSARY_MODULES = frozenset({"mcp_endpoint.tools", "mcp_endpoint.prompts"})


RESULTS = LRU(max(settings.MCP_RESULT_CACHE_SIZE, 1))
# The key of the last result this thread served from or stored in RESULTS (read and reset by
# mcp_endpoint/fastpath.py, which replays such answers without Django).
served = threading.local()


def _ours(handler) -> bool:
    return getattr(handler, "__module__", None) in GLOSSARY_MODULES


def _cacheable(method_name: str, params: dict, ctx) -> bool:
    allowed = PARAMS.get(method_name)
    if allowed is None or not params.keys() <= allowed:
        return False
    if ctx.notify is not None or ctx.send_request is not None:
        return False
    if method_name == p.TOOLS_CALL:
        tool = TOOLS.get(params.get("name"))
        return tool is not None and not tool.interactive and _ours(tool.handler)
    if method_name == p.PROMPTS_GET:
        prompt = PROMPTS.get(params.get("name"))
        return prompt is not None and _ours(prompt.handler)
    if method_name == p.RESOURCES_READ:
        uri = params.get("uri")
        return isinstance(uri, str) and uri.startswith(GLOSSARY_URIS)
    # resources/list mixes in the conformance suite's fixed resources when they are on.
    return not settings.MCP_CONFORMANCE_FIXTURES


def key(method_name: str, params: dict, ctx):
    """The cache key of this call (reading the content state: one query), or None when the
    call must run every time."""
    if settings.MCP_RESULT_CACHE_SIZE <= 0 or not _cacheable(method_name, params, ctx):
        return None
    # The WSGI fast path has just read the state for this very request (a miss there); reading
    # it again would cost a second query for the same answer. Reading it earlier keeps the
    # cache correct: the data is then read after the state, never before.
    state = getattr(served, "state", None) or selectors.content_state()
    served.state = None
    if state is None:
        return None
    try:
        canonical = orjson.dumps(
            {k: v for k, v in params.items() if k != p.META}, option=orjson.OPT_SORT_KEYS
        )
    except TypeError:  # e.g. an integer beyond 64 bits: not worth a special case
        return None
    return (state, ctx.era, ctx.protocol_version, ctx.base_url, method_name, canonical)


def get(cache_key) -> dict | None:
    encoded = RESULTS.get(cache_key)
    if encoded is None:
        return None
    served.key = cache_key
    return orjson.loads(encoded)


def put(cache_key, result: dict) -> None:
    RESULTS.put(cache_key, orjson.dumps(result))
    served.key = cache_key
