"""The JSON-RPC methods of the server, registered once in `registry.METHODS`.

Handlers receive params already validated against the schema next to them and return the
era-neutral result object; the dispatcher adds the modern-era fields (`resultType`, server
info, caching hints). Tools, resources and prompts come from their declaration tables, so
the list methods cannot drift from what the call/read/get methods accept.
"""

import orjson
from django.conf import settings

from . import notifications
from . import prompts as _prompts  # noqa: F401  (registers the prompts)
from . import protocol as p
from . import tools as _tools  # noqa: F401  (registers the tools)
from .errors import InvalidParams, InvalidRequest, ResourceNotFound
from .pagination import offset_page
from .registry import (
    LEGACY_ONLY,
    PROMPTS,
    RESOURCE_TEMPLATES,
    TOOLS,
    first_error,
    method,
)
from .resources import list_resources, read_resource
from .streams import ListenStream, honored_filter, subscribable

if settings.MCP_CONFORMANCE_FIXTURES:
    from . import conformance_fixtures as _fixtures  # noqa: F401  (registers the fixtures)

OBJECT = {"type": "object"}
CURSOR = {"type": "object", "properties": {"cursor": {"type": "string"}}}
URI = {"type": "object", "properties": {"uri": {"type": "string"}}, "required": ["uri"]}


def _page(key: str, items: list, params: dict, kind: str) -> dict:
    page, next_cursor = offset_page(items, params.get("cursor"), kind, settings.MCP_PAGE_SIZE)
    result = {key: page}
    if next_cursor:
        result["nextCursor"] = next_cursor
    return result


@method(
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
    return {
        "protocolVersion": version,
        "capabilities": p.capabilities(ctx.transport),
        "serverInfo": p.server_info(),
        "instructions": p.INSTRUCTIONS,
    }


@method(p.INITIALIZED, eras=LEGACY_ONLY, notification=True)
def initialized(params: dict, ctx) -> None:
    return None


@method(p.CANCELLED, notification=True)
def cancelled(params: dict, ctx) -> None:
    # Every request is answered synchronously before the next is read, so there is never
    # anything in flight to stop; the spec lets receivers ignore unknown/finished ids.
    return None


@method(p.PING, eras=LEGACY_ONLY)
def ping(params: dict, ctx) -> dict:
    return {}


@method(p.DISCOVER, cacheable=True)
def discover(params: dict, ctx) -> dict:
    return {
        "supportedVersions": list(p.SUPPORTED_VERSIONS),
        "capabilities": p.capabilities(ctx.transport),
        "instructions": p.INSTRUCTIONS,
        p.META: {p.META_SERVER_INFO: p.server_info()},
    }


@method(
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


@method(p.TOOLS_LIST, params=CURSOR, cacheable=True)
def tools_list(params: dict, ctx) -> dict:
    return _page("tools", [t.definition() for t in TOOLS.values()], params, "tools")


@method(
    p.TOOLS_CALL,
    params={
        "type": "object",
        "properties": {"name": {"type": "string"}, "arguments": OBJECT},
        "required": ["name"],
    },
)
def tools_call(params: dict, ctx) -> dict:
    name = params["name"]
    tool = TOOLS.get(name)
    if tool is None:
        raise InvalidParams(
            f"Unknown tool: {name}. Available tools: {', '.join(TOOLS)}",
            data={"name": name, "available": list(TOOLS)},
        )
    arguments = params.get("arguments") or {}
    problem = first_error(tool.validator, arguments)
    if problem:
        # SEP-1303: argument errors are tool execution errors the model can correct.
        return {
            "content": [
                {
                    "type": "text",
                    "text": f"Invalid arguments for {name}: {problem}. "
                    f"Expected input schema: {tool.input_schema}",
                }
            ],
            "isError": True,
        }
    if tool.interactive:  # reports its own progress and logs
        outcome = tool.handler(arguments, ctx)
    else:
        # What a live call (calls.py) says before the result of a one-step tool: the call,
        # that it is done, and how it went (each only if the client asked for it).
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


@method(p.RESOURCES_LIST, params=CURSOR, cacheable=True)
def resources_list(params: dict, ctx) -> dict:
    items, next_cursor = list_resources(params.get("cursor"), settings.MCP_PAGE_SIZE)
    result = {"resources": items}
    if next_cursor:
        result["nextCursor"] = next_cursor
    return result


@method(p.RESOURCES_TEMPLATES_LIST, params=CURSOR, cacheable=True)
def resource_templates_list(params: dict, ctx) -> dict:
    templates = [t.definition() for t in RESOURCE_TEMPLATES.values()]
    return _page("resourceTemplates", templates, params, "templates")


@method(p.RESOURCES_READ, params=URI, cacheable=True)
def resources_read(params: dict, ctx) -> dict:
    uri = params["uri"]
    contents = read_resource(uri, ctx)
    if contents is None:
        raise ResourceNotFound(
            f"Resource not found: {uri}. Readable resources are "
            + " and ".join(RESOURCE_TEMPLATES)
            + " for published entries; see resources/list.",
            data={"uri": uri},
        )
    return {"contents": [contents]}


def _subscribable_uri(params: dict) -> str:
    """Any absolute URI may be subscribed (one that names no resource simply never fires,
    as in the SDK's own server); updates fire for glossary://terms/… and glossary://articles/…"""
    uri = params["uri"]
    if not subscribable(uri):
        raise InvalidParams(
            f"Cannot subscribe to {uri[:100]!r}: not an absolute URI. Resources that change are "
            + " and ".join(RESOURCE_TEMPLATES),
            data={"uri": uri[:2000]},
        )
    return uri


@method(p.RESOURCES_SUBSCRIBE, eras=LEGACY_ONLY, params=URI)
def resources_subscribe(params: dict, ctx) -> dict:
    """2025-11-25 server/resources §Subscriptions: the session's GET stream then carries
    `notifications/resources/updated` for the URI. Without a session (stateless HTTP, stdio)
    there is no stream to deliver on: accepted, answered `{}`, nothing stored."""
    uri = _subscribable_uri(params)
    subscribe = getattr(ctx.session, "subscribe", None)
    if subscribe is not None and not subscribe(uri):
        raise InvalidParams("This session holds the maximum number of subscriptions")
    return {}


@method(p.RESOURCES_UNSUBSCRIBE, eras=LEGACY_ONLY, params=URI)
def resources_unsubscribe(params: dict, ctx) -> dict:
    uri = _subscribable_uri(params)
    unsubscribe = getattr(ctx.session, "unsubscribe", None)
    if unsubscribe is not None:
        unsubscribe(uri)
    return {}


@method(
    p.SUBSCRIPTIONS_LISTEN,
    eras=frozenset({p.MODERN}),
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
    """2026-07-28 `subscriptions/listen`: the HTTP view streams the acknowledgement and the
    opted-in notifications (streams.py); other transports have no stream for it."""
    if ctx.transport != "http":
        raise InvalidRequest("subscriptions/listen is served over Streamable HTTP only")
    return ListenStream(honored_filter(params["notifications"]))


@method(p.PROMPTS_LIST, params=CURSOR, cacheable=True)
def prompts_list(params: dict, ctx) -> dict:
    return _page("prompts", [pr.definition() for pr in PROMPTS.values()], params, "prompts")


@method(
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
    prompt = PROMPTS.get(name)
    if prompt is None:
        raise InvalidParams(
            f"Unknown prompt: {name}. Available prompts: {', '.join(PROMPTS)}",
            data={"name": name, "available": list(PROMPTS)},
        )
    arguments = params.get("arguments") or {}
    problem = first_error(prompt.validator, arguments)
    if problem:
        raise InvalidParams(f"Invalid arguments for prompt {name}: {problem}")
    return prompt.handler(arguments, ctx)


MAX_COMPLETIONS = 100


@method(
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
    """Completion from real published slugs; a ref we don't know completes to nothing
    (not an error: clients probe completion with refs of their own)."""
    ref, argument = params["ref"], params["argument"]
    source = None
    if ref["type"] == "ref/resource":
        template = RESOURCE_TEMPLATES.get(ref.get("uri"))
        if template is not None and argument["name"] == "slug":
            source = template.complete
    elif ref["type"] == "ref/prompt":
        prompt = PROMPTS.get(ref.get("name"))
        for arg in prompt.arguments if prompt else ():
            if arg.name == argument["name"]:
                source = arg.complete
    values = source(argument["value"]) if source else []
    completion = {"values": values[:MAX_COMPLETIONS], "hasMore": len(values) > MAX_COMPLETIONS}
    if not completion["hasMore"]:
        completion["total"] = len(values)
    return {"completion": completion}
