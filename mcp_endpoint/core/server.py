"""The server object: one instance owns its method table, tools, prompts, resources and
resource templates, says who it is, and derives its capabilities from what is registered.

Why an instance and not module tables: the product's server (mcp_endpoint/features/server.py)
and the test suite's conformance server (tests/mcp/conformance_server.py) live side by side,
tests build small servers in-process, and nothing depends on import order or on which module
a handler was written in. The transports serve the instance `settings.MCP_SERVER` names
(`get_server()`); the dispatcher (core/dispatcher.py) takes a server. A server may also carry
a result cache (answers to calls whose result depends only on their params and the content)
and a change feed (what an event in the content store means for subscribed resources); both
are optional, and a server without a change feed declares no resource subscriptions.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass
from typing import Any, Protocol

import orjson
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from . import protocol as p
from .methods import BUILTINS
from .registry import Features, MethodTable, Resource, ResourceTemplate

# Calls a result cache may answer, and the params keys each may carry: anything else (e.g. the
# MRTR `inputResponses`/`requestState`) makes the answer depend on more than the content.
CACHEABLE_PARAMS = {
    p.TOOLS_CALL: frozenset({"name", "arguments", p.META}),
    p.RESOURCES_READ: frozenset({"uri", p.META}),
    p.RESOURCES_LIST: frozenset({"cursor", p.META}),
    p.PROMPTS_GET: frozenset({"name", "arguments", p.META}),
}


class ResultCache(Protocol):
    """What the dispatcher asks of a result cache. `key` is called only with validated params
    and only for calls `Server.cacheable` allows; it returns None when the call must run after
    all (the cache is off, no state to key on)."""

    def key(self, method: str, params: dict, ctx) -> Hashable | None: ...
    def get(self, key: Hashable) -> dict | None: ...
    def put(self, key: Hashable, result: dict) -> None: ...


class ChangeFeed(Protocol):
    """The content store's events as resource notifications (transports/streams.py)."""

    channel: str  # the event-store channel that carries content changes

    def changes(self, event_type: str, data: dict, uris: Collection[str]) -> tuple[list, bool]:
        """(the subscribed `uris` this event updates, whether the resource list changed)."""
        ...


class NoChanges:
    """The change feed of a server whose resources never change: a channel nothing is sent
    on, so its streams carry keep-alives only."""

    channel = "mcp-no-changes"

    def changes(self, event_type: str, data: dict, uris: Collection[str]) -> tuple[list, bool]:
        return [], False


NO_CHANGES = NoChanges()

logger = logging.getLogger("mcp_endpoint")


@dataclass(slots=True)
class CallEvent:
    """What a server's observers learn of one answered request: the method, its validated
    params, the JSON-RPC response object sent, the request context and the time the answer
    took. Observers must treat everything here as read-only."""

    method: str | None
    params: dict | None
    response: dict | None
    ctx: Any
    seconds: float


class Server(MethodTable, Features):
    def __init__(
        self,
        *,
        name: str,
        title: str = "",
        version: str = "0.0.0",
        description: str = "",
        # A string, or a callable giving it when asked (an address the content store keeps).
        website_url: str | Callable[[], str] = "",
        instructions: str = "",
        builtins: bool = True,
        cache_ttl_ms: int | None = None,
        cache_scope: str = "public",
        # (tool, jsonschema ValidationError) -> the text of the isError result, for a server
        # that speaks its content's language; by default an English one.
        invalid_arguments: Callable | None = None,
    ) -> None:
        MethodTable.__init__(self)
        Features.__init__(self)
        self.name, self.title, self.version = name, title, version
        self.description, self.website_url = description, website_url
        self.instructions = instructions
        self._invalid_arguments = invalid_arguments
        # Freshness hint on modern results of methods registered with `cache_hints`.
        self.cache_ttl_ms, self.cache_scope = cache_ttl_ms, cache_scope
        self.result_cache: ResultCache | None = None
        self.change_feed: ChangeFeed | None = None
        # Entries listed by resources/list after the fixed resources: (cursor, page size) ->
        # (resource definitions, next cursor or None).
        self._lister: Callable | None = None
        self._lister_cacheable = False
        # Callables told of every answered request (`observe`): analytics, off the hot path.
        self.observers: list[Callable[[CallEvent], None]] = []
        if builtins:
            self.include_methods(BUILTINS)

    def invalid_arguments(self, tool, error) -> str:
        """What a model reads when `tools/call` arguments fail the tool's input schema: where,
        what is wrong, and the expected schema as JSON (never a Python repr)."""
        if self._invalid_arguments is not None:
            return self._invalid_arguments(tool, error)
        where = ".".join(str(part) for part in error.absolute_path)
        message = error.message if len(error.message) <= 300 else error.message[:300] + "…"
        schema = orjson.dumps(tool.input_schema).decode()
        return (
            f"Invalid arguments for {tool.name}: {where + ': ' if where else ''}{message}. "
            f"Expected input schema: {schema}"
        )

    def __repr__(self) -> str:
        return f"<Server {self.name!r}: {len(self.methods)} methods, {len(self.tools)} tools>"

    # --- who it is ------------------------------------------------------------------------
    def info(self) -> dict:
        """The `Implementation` object naming this server (2025-11-25 adds description and
        websiteUrl)."""
        info = {"name": self.name, "title": self.title, "version": self.version}
        if self.description:
            info["description"] = self.description
        website = self.website_url() if callable(self.website_url) else self.website_url
        if website:
            info["websiteUrl"] = website
        return info

    def capabilities(self, *, push: bool) -> dict:
        """Exactly what is implemented. Declarations never change while the process runs, so
        no list changes for tools and prompts; resource updates need a change feed and a
        transport that can push them (`push`: HTTP streams, not stdio)."""
        capabilities: dict = {}
        if self.tools:
            capabilities["tools"] = {"listChanged": False}
        if self.resources or self.templates or self._lister:
            notifies = push and self.change_feed is not None
            capabilities["resources"] = {
                "subscribe": notifies and p.RESOURCES_SUBSCRIBE in self.methods,
                "listChanged": notifies,
            }
        if self.prompts:
            capabilities["prompts"] = {"listChanged": False}
        if p.COMPLETE in self.methods:
            capabilities["completions"] = {}
        if p.LOGGING_SET_LEVEL in self.methods:
            capabilities["logging"] = {}
        return capabilities

    # --- resources ------------------------------------------------------------------------
    def resource_list(self, lister: Callable, *, cacheable: bool = False) -> Callable:
        """Declare how resources/list pages through the entries that have no fixed URI."""
        self._lister, self._lister_cacheable = lister, cacheable
        return lister

    def list_resources(self, cursor, page_size: int) -> tuple[list[dict], str | None]:
        from .pagination import offset_page

        fixed = [r.definition() for r in self.resources.values()]
        if self._lister is None:
            return offset_page(fixed, cursor, "resources", page_size)
        items, next_cursor = self._lister(cursor, page_size)
        # Fixed-URI resources (none in production) head the first page.
        return (fixed + items if not cursor else items), next_cursor

    def find_resource(self, uri: str) -> tuple[Resource | ResourceTemplate, str | None] | None:
        """The declaration `uri` belongs to, with the template's slug (None for a fixed one)."""
        fixed = self.resources.get(uri)
        if fixed is not None:
            return fixed, None
        for template in self.templates.values():
            slug = template.slug(uri)
            if slug is not None:
                return template, slug
        return None

    def read_resource(self, uri: str, ctx) -> dict | None:
        """The contents object for `uri`, or None when nothing readable has that URI."""
        found = self.find_resource(uri)
        if found is None:
            return None
        declaration, slug = found
        return declaration.read(ctx) if slug is None else declaration.read(slug, ctx)

    # --- what a result cache may answer ---------------------------------------------------
    def cacheable(self, method: str, params: dict, ctx) -> bool:
        """Whether the answer to this (validated) call depends only on its params and the
        content: a declaration flagged cacheable, no channel to the client (live calls and
        stdio notify or ask while they run) and no params beyond the call's own."""
        allowed = CACHEABLE_PARAMS.get(method)
        if allowed is None or not params.keys() <= allowed:
            return False
        if ctx.notify is not None or ctx.send_request is not None:
            return False
        if method == p.TOOLS_CALL:
            tool = self.tools.get(params["name"])
            return tool is not None and tool.cacheable and not tool.interactive
        if method == p.PROMPTS_GET:
            prompt = self.prompts.get(params["name"])
            return prompt is not None and prompt.cacheable
        if method == p.RESOURCES_READ:
            found = self.find_resource(params["uri"])
            return found is not None and found[0].cacheable
        return self._lister_cacheable and all(r.cacheable for r in self.resources.values())

    # --- observers ------------------------------------------------------------------------
    def observe(self, observer: Callable[[CallEvent], None]) -> Callable[[CallEvent], None]:
        """Tell `observer` of every answered request from now on. It runs on the request's
        thread, after the answer is built: it must be cheap (append to a buffer) and it can
        never fail the call (its exceptions are logged)."""
        if observer not in self.observers:
            self.observers.append(observer)
        return observer

    def observed(self, event: CallEvent) -> None:
        for observer in self.observers:
            try:
                observer(event)
            except Exception:
                logger.exception("MCP observer %r failed; the call was answered", observer)


_servers: dict[str, Server] = {}


def get_server() -> Server:
    """The server `settings.MCP_SERVER` names (a dotted path to a `Server` instance), imported
    on first use: the transports serve it, so a test settings module or an environment
    variable can swap in another server without the product importing it."""
    path = settings.MCP_SERVER
    server = _servers.get(path)
    if server is None:
        server = import_string(path)
        if not isinstance(server, Server):
            raise ImproperlyConfigured(
                f"settings.MCP_SERVER ({path}) is not an mcp_endpoint Server"
            )
        _servers[path] = server
    return server
