"""The built-in JSON-RPC methods every `Server` gets (`BUILTINS`), over its own declarations.

Handlers receive params already validated against the schema next to them and the request's
context, whose `server` is the one being served; they return the era-neutral result object
and the dispatcher adds the modern-era fields (`resultType`, server info, caching hints).
Tools, resources and prompts come from the server's declaration tables, so the list methods
cannot drift from what the call/read/get methods accept.
"""

import re

import orjson
from django.conf import settings

from . import notifications
from . import protocol as p
from .errors import InvalidParams, InvalidRequest, ResourceNotFound
from .pagination import offset_page
from .registry import LEGACY_ONLY, MODERN_ONLY, MethodTable, first_error, first_violation

BUILTINS = MethodTable()
OBJECT = {"type": "object"}
CURSOR = {"type": "object", "properties": {"cursor": {"type": "string"}}}
URI = {"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]}
MAX_COMPLETIONS = 100


def _page(key: str, items: list, params: dict, kind: str) -> dict:
    page, next_cursor = offset_page(items, params.get("cursor"), kind, settings.MCP_PAGE_SIZE)
    result = {key: page}
    if next_cursor:
        result["nextCursor"] = next_cursor
    return result


@BUILTINS.method(
    p.INITIALIZE,
    eras=LEGACY_ONLY,
    params={
        "type": "object",
        "properties": {
            "protocolVersion": {"type": "string"},
            "capabilities": OBJECT,
            "clientInfo": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "version": {"type": "string"}},
            },
        },
        "required": ["protocolVersion", "capabilities", "clientInfo"],
    },
)
def initialize(params: dict, ctx) -> dict:
    """2025-11-25 basic/lifecycle §Version Negotiation: echo a version we support, else
    answer with our latest (a normal result; the client decides whether to disconnect)."""
    requested = params["protocolVersion"]
    version = requested if requested in p.LEGACY_VERSIONS else p.LATEST_LEGACY_VERSION
    if ctx.session is not None:
        ctx.session.negotiated(version, params["clientInfo"], params["capabilities"])
    server = ctx.server
    return {
        "protocolVersion": version,
        "capabilities": server.capabilities(push=ctx.push),
        "serverInfo": server.info(),
        "instructions": server.instructions,
    }


@BUILTINS.method(p.INITIALIZED, eras=LEGACY_ONLY, notification=True)
def initialized(params: dict, ctx) -> None:
    return None


@BUILTINS.method(p.CANCELLED, notification=True)
def cancelled(params: dict, ctx) -> None:
    # Every request is answered synchronously before the next is read, so there is never
    # anything in flight to stop; the spec lets receivers ignore unknown/finished ids.
    return None


@BUILTINS.method(p.PING, eras=LEGACY_ONLY)
def ping(params: dict, ctx) -> dict:
    return {}


@BUILTINS.method(p.DISCOVER, cache_hints=True)
def discover(params: dict, ctx) -> dict:
    server = ctx.server
    return {
        "supportedVersions": list(p.SUPPORTED_VERSIONS),
        "capabilities": server.capabilities(push=ctx.push),
        "instructions": server.instructions,
        p.META: {p.META_SERVER_INFO: server.info()},
    }


@BUILTINS.method(
    p.LOGGING_SET_LEVEL,
    eras=LEGACY_ONLY,
    params={
        "type": "object",
        "properties": {"level": {"enum": list(p.LOG_LEVELS)}},
        "required": ["level"],
    },
)
def set_level(params: dict, ctx) -> dict:
    if ctx.session is not None:
        ctx.session.log_level = params["level"]
    return {}


@BUILTINS.method(p.TOOLS_LIST, params=CURSOR, cache_hints=True)
def tools_list(params: dict, ctx) -> dict:
    tools = [t.definition() for t in ctx.server.tools.values()]
    return _page("tools", tools, params, "tools")


@BUILTINS.method(
    p.TOOLS_CALL,
    params={
        "type": "object",
        "properties": {"name": {"type": "string"}, "arguments": OBJECT},
        "required": ["name"],
    },
)
def tools_call(params: dict, ctx) -> dict:
    name = params["name"]
    tools = ctx.server.tools
    tool = tools.get(name)
    if tool is None:
        raise InvalidParams(
            f"Unknown tool: {name}. Available tools: {', '.join(tools)}",
            data={"name": name, "available": list(tools)},
        )
    arguments = params.get("arguments") or {}
    violation = first_violation(tool.validator, arguments)
    if violation is not None:
        # SEP-1303: argument errors are tool execution errors the model can correct.
        return {
            "content": [{"type": "text", "text": ctx.server.invalid_arguments(tool, violation)}],
            "isError": True,
        }
    if tool.interactive:  # reports its own progress and logs
        outcome = tool.handler(arguments, ctx)
    else:
        # What a live call (transports/calls.py) says before the result of a one-step tool:
        # the call, that it is done, and how it went (each only if the client asked for it).
        notifications.log(ctx, "debug", f"{name}: {orjson.dumps(arguments).decode()[:500]}")
        outcome = tool.handler(arguments, ctx)
        notifications.progress(ctx, 1, 1, f"{name}: gotowe")
        level = "error" if outcome.is_error else "info"
        notifications.log(ctx, level, f"{name}: {outcome.text[:200]}")
    if outcome.content is not None:
        content = list(outcome.content)
    else:
        content = [{"type": "text", "text": outcome.text}]
    result = {"content": content, "isError": outcome.is_error}
    if outcome.structured is not None and not outcome.is_error:
        result["structuredContent"] = outcome.structured
    return result


@BUILTINS.method(p.RESOURCES_LIST, params=CURSOR, cache_hints=True)
def resources_list(params: dict, ctx) -> dict:
    items, next_cursor = ctx.server.list_resources(params.get("cursor"), settings.MCP_PAGE_SIZE)
    result = {"resources": items}
    if next_cursor:
        result["nextCursor"] = next_cursor
    return result


@BUILTINS.method(p.RESOURCES_TEMPLATES_LIST, params=CURSOR, cache_hints=True)
def resource_templates_list(params: dict, ctx) -> dict:
    templates = [t.definition() for t in ctx.server.templates.values()]
    return _page("resourceTemplates", templates, params, "templates")


def _readable(server) -> str:
    return " and ".join([*server.resources, *server.templates]) or "none"


@BUILTINS.method(p.RESOURCES_READ, params=URI, cache_hints=True)
def resources_read(params: dict, ctx) -> dict:
    uri = params["uri"]
    contents = ctx.server.read_resource(uri, ctx)
    if contents is None:
        raise ResourceNotFound(
            f"Resource not found: {uri}. Readable resources are {_readable(ctx.server)}; "
            "see resources/list.",
            data={"uri": uri},
        )
    return {"contents": [contents]}


_ABSOLUTE_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+")


def subscribable(uri: str) -> bool:
    """An absolute URI of sane length (only the server's own resources ever get updates)."""
    return len(uri) <= 2000 and bool(_ABSOLUTE_URI.fullmatch(uri))


def _subscribable_uri(params: dict, ctx) -> str:
    """Any absolute URI may be subscribed (one that names no resource simply never fires,
    as in the SDK's own server)."""
    uri = params["uri"]
    if not subscribable(uri):
        raise InvalidParams(
            f"Cannot subscribe to {uri[:100]!r}: not an absolute URI. Resources that change are "
            + " and ".join(ctx.server.templates),
            data={"uri": uri[:2000]},
        )
    return uri


@BUILTINS.method(p.RESOURCES_SUBSCRIBE, eras=LEGACY_ONLY, params=URI)
def resources_subscribe(params: dict, ctx) -> dict:
    """2025-11-25 server/resources §Subscriptions: the session's GET stream then carries
    `notifications/resources/updated` for the URI. Without a session (stateless HTTP, stdio)
    there is no stream to deliver on: accepted, answered `{}`, nothing stored."""
    uri = _subscribable_uri(params, ctx)
    subscribe = getattr(ctx.session, "subscribe", None)
    if subscribe is not None and not subscribe(uri):
        raise InvalidParams("This session holds the maximum number of subscriptions")
    return {}


@BUILTINS.method(p.RESOURCES_UNSUBSCRIBE, eras=LEGACY_ONLY, params=URI)
def resources_unsubscribe(params: dict, ctx) -> dict:
    uri = _subscribable_uri(params, ctx)
    unsubscribe = getattr(ctx.session, "unsubscribe", None)
    if unsubscribe is not None:
        unsubscribe(uri)
    return {}


def honored_filter(requested: dict) -> dict:
    """The subset of a listen filter this server honors (all of it: a kind that never fires,
    like tools/list_changed, is honored and simply stays silent)."""
    honored = {}
    for key in ("toolsListChanged", "promptsListChanged", "resourcesListChanged"):
        if requested.get(key) is True:
            honored[key] = True
    uris = [u for u in requested.get("resourceSubscriptions") or () if isinstance(u, str)]
    if uris:
        honored["resourceSubscriptions"] = list(dict.fromkeys(uris))
    return honored


@BUILTINS.method(
    p.SUBSCRIPTIONS_LISTEN,
    eras=MODERN_ONLY,
    stream=True,
    params={
        "type": "object",
        "properties": {
            "notifications": {
                "type": "object",
                "properties": {
                    "toolsListChanged": {"type": "boolean"},
                    "promptsListChanged": {"type": "boolean"},
                    "resourcesListChanged": {"type": "boolean"},
                    "resourceSubscriptions": {"type": "array", "items": {"type": "string"}},
                },
            }
        },
        "required": ["notifications"],
    },
)
def subscriptions_listen(params: dict, ctx) -> dict:
    """2026-07-28 `subscriptions/listen`: the result is the filter the stream honors; a
    transport that can push (HTTP) opens the stream with it as the acknowledgement
    (transports/streams.py), others have no stream for it."""
    if not ctx.push:
        raise InvalidRequest("subscriptions/listen is served over Streamable HTTP only")
    return {"notifications": honored_filter(params["notifications"])}


@BUILTINS.method(p.PROMPTS_LIST, params=CURSOR, cache_hints=True)
def prompts_list(params: dict, ctx) -> dict:
    prompts = [pr.definition() for pr in ctx.server.prompts.values()]
    return _page("prompts", prompts, params, "prompts")


@BUILTINS.method(
    p.PROMPTS_GET,
    params={
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "arguments": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["name"],
    },
)
def prompts_get(params: dict, ctx) -> dict:
    name = params["name"]
    prompts = ctx.server.prompts
    prompt = prompts.get(name)
    if prompt is None:
        raise InvalidParams(
            f"Unknown prompt: {name}. Available prompts: {', '.join(prompts)}",
            data={"name": name, "available": list(prompts)},
        )
    arguments = params.get("arguments") or {}
    problem = first_error(prompt.validator, arguments)
    if problem:
        raise InvalidParams(f"Invalid arguments for prompt {name}: {problem}")
    return prompt.handler(arguments, ctx)


@BUILTINS.method(
    p.COMPLETE,
    params={
        "type": "object",
        "properties": {
            "ref": {
                "type": "object",
                "properties": {
                    "type": {"type": "string"},
                    "name": {"type": "string"},
                    "uri": {"type": "string"},
                },
                "required": ["type"],
            },
            "argument": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "value": {"type": "string"}},
                "required": ["name", "value"],
            },
            "context": OBJECT,
        },
        "required": ["ref", "argument"],
    },
)
def complete(params: dict, ctx) -> dict:
    """Completion from the declarations' sources; a ref we don't know completes to nothing
    (not an error: clients probe completion with refs of their own)."""
    ref, argument = params["ref"], params["argument"]
    source = None
    if ref["type"] == "ref/resource":
        template = ctx.server.templates.get(ref.get("uri"))
        if template is not None and argument["name"] == "slug":
            source = template.complete
    elif ref["type"] == "ref/prompt":
        prompt = ctx.server.prompts.get(ref.get("name"))
        for arg in prompt.arguments if prompt else ():
            if arg.name == argument["name"]:
                source = arg.complete
    values = source(argument["value"]) if source else []
    completion = {"values": values[:MAX_COMPLETIONS], "hasMore": len(values) > MAX_COMPLETIONS}
    if not completion["hasMore"]:
        completion["total"] = len(values)
    return {"completion": completion}
