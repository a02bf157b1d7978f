"""What a server can be asked for, declared once: JSON-RPC methods, tools, prompts, resources
and resource templates, each next to its schema, description and flags.

A `Features` object collects the tools, prompts, resources and templates of one module, with
decorators that reject a duplicate name at declaration; a `Server` (core/server.py) includes
any number of them and adds its method table. Nothing here is global: two servers in one
process (the product's and the test suite's conformance server) never share an entry. Schemas
are compiled once, when declared, so a broken schema fails at import, not on a request.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jsonschema_rs
from django.core.exceptions import ImproperlyConfigured
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from .protocol import LEGACY, MODERN

BOTH_ERAS = frozenset({LEGACY, MODERN})
LEGACY_ONLY = frozenset({LEGACY})
MODERN_ONLY = frozenset({MODERN})
READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}


class SchemaValidator:
    """One schema compiled twice: by jsonschema-rs (Rust), which answers "valid?" in about a
    microsecond, and by jsonschema, which words the error of an invalid instance.

    Why: every call is validated twice (its params, then a tool's or prompt's arguments), and
    jsonschema's `is_valid` is a visible share of a cold call's CPU (docs/benchmarks.md, "Cold
    reads") while almost every instance is valid. jsonschema stays the authority: an instance
    the fast check rejects is judged again by jsonschema, whose verdict and message are the
    ones used (the wording clients and tests/mcp/test_params.py see is unchanged), and an
    instance the fast check cannot take (e.g. an integer beyond 64 bits) goes to jsonschema alone.
    tests/mcp/test_validation.py checks that both agree on every declared schema."""

    __slots__ = ("fast", "full", "schema")

    def __init__(self, schema: dict) -> None:
        Draft202012Validator.check_schema(schema)
        self.schema = schema
        self.full = Draft202012Validator(schema)
        self.fast = jsonschema_rs.Draft202012Validator(schema)

    def is_valid(self, instance: Any) -> bool:
        try:
            if self.fast.is_valid(instance):
                return True
        except (ValueError, TypeError, OverflowError):
            pass
        return self.full.is_valid(instance)

    def iter_errors(self, instance: Any):
        return self.full.iter_errors(instance)


def compile_schema(schema: dict) -> SchemaValidator:
    return SchemaValidator(schema)


def first_violation(validator: SchemaValidator, instance: Any):
    """The most relevant `jsonschema.ValidationError` of `instance`, or None if valid (for a
    server that words its own messages: `Server.invalid_arguments`)."""
    if validator.is_valid(instance):
        return None
    return best_match(validator.iter_errors(instance))


# How deep params may nest. No method's params come near it; checking it first keeps every
# later walk over the params (schema validation, `nul_path`, the cache key's serialization)
# far from Python's recursion limit, which a 1,000-level `_meta` would otherwise reach.
MAX_PARAMS_DEPTH = 64


def too_deep(value: Any, limit: int = MAX_PARAMS_DEPTH) -> bool:
    """Whether `value` nests objects and arrays more than `limit` levels deep (walked with a
    stack, not recursion, so any depth the JSON parser accepts is measured safely)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def nul_path(value: Any, root: str = "") -> str | None:
    """Where the first string (or object key) holding a NUL character is, or None. PostgreSQL
    text cannot hold NUL (psycopg raises DataError), and no glossary text contains one, so a
    value with NUL is refused here, with every other shape error, before anything reads it."""
    if isinstance(value, str):
        return root or "value" if "\x00" in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{root}.{key}" if root else str(key)
            if "\x00" in key:
                return where
            found = nul_path(item, where)
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = nul_path(item, f"{root}[{index}]")
            if found:
                return found
    return None


def first_error(validator: SchemaValidator, instance: Any, root: str = "") -> str | None:
    """A readable message for the first violation, naming where it is (below `root`, e.g.
    "params.name: {} is not of type 'string'"), or None if valid. A NUL character anywhere
    is a violation too (see `nul_path`)."""
    error = first_violation(validator, instance)
    if error is None:
        where = nul_path(instance, root)
        if where is None:
            return None
        where = where.replace("\x00", "\\u0000")
        return (
            f"{where}: contains a NUL character (\\u0000), which no text here may contain; "
            "remove it"
        )
    path = [str(part) for part in error.absolute_path]
    where = ".".join([root, *path] if root else path)
    message = error.message if len(error.message) <= 300 else error.message[:300] + "…"
    return f"{where}: {message}" if where else message


@dataclass(frozen=True)
class Method:
    """One JSON-RPC method: `handler(params, ctx) -> dict` (None for a notification), called
    only with params that passed `validator`."""

    name: str
    handler: Callable
    params_schema: dict
    eras: frozenset
    # The modern result carries caching hints (ttlMs, cacheScope: 2026-07-28
    # server/utilities/caching).
    cache_hints: bool
    notification: bool
    # The transport answers it with a stream of notifications; the handler's result is the
    # acknowledgement the stream opens with (subscriptions/listen).
    stream: bool
    validator: SchemaValidator


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns: structured content (matching the output schema) and Markdown."""

    text: str
    structured: dict | None = None
    is_error: bool = False
    # Content blocks other than the one text block (image, audio, embedded resource, ...):
    # when given, they are the result's `content`, and `text` is not added to it.
    content: tuple[dict, ...] | None = None

    @classmethod
    def error(cls, text: str) -> ToolResult:
        return cls(text=text, is_error=True)


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    input_schema: dict
    output_schema: dict | None
    handler: Callable  # (arguments: dict, ctx) -> ToolResult
    annotations: dict = field(default_factory=dict)
    validator: SchemaValidator | None = None
    # Talks to the client while it runs (logs, progress, elicitation, sampling): the legacy
    # HTTP transport then runs it as a live call that may answer with an SSE stream.
    interactive: bool = False
    # Its result depends only on its arguments and the server's content state, so a result
    # cache may answer a repeat (core/server.py `Server.cacheable`).
    cacheable: bool = False

    def definition(self) -> dict:
        definition = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
        }
        if self.output_schema is not None:
            definition["outputSchema"] = self.output_schema
        definition["annotations"] = {"title": self.title, **self.annotations}
        return definition


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str
    required: bool = True
    # Completion source for this argument: callable(prefix) -> list[str].
    complete: Callable[[str], list[str]] | None = None


@dataclass(frozen=True)
class Prompt:
    name: str
    title: str
    description: str
    arguments: tuple[PromptArgument, ...]
    handler: Callable  # (arguments: dict[str, str], ctx) -> dict (GetPromptResult)
    validator: SchemaValidator | None = None
    cacheable: bool = False

    def definition(self) -> dict:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "arguments": [
                {"name": a.name, "description": a.description, "required": a.required}
                for a in self.arguments
            ],
        }


@dataclass(frozen=True)
class ResourceTemplate:
    """A family of resources `scheme://kind/{slug}`: how to list, read and complete them."""

    uri_template: str
    name: str
    title: str
    description: str
    mime_type: str
    prefix: str  # the URI up to the slug, e.g. "glossary://terms/"
    read: Callable  # (slug, ctx) -> dict (a resource contents object) or None
    complete: Callable[[str], list[str]]  # (prefix) -> slugs
    suffix: str = ""  # the URI after the slug, e.g. "/raw" in "x://items/{slug}/raw"
    cacheable: bool = False

    def slug(self, uri: str) -> str | None:
        """The `{slug}` part of `uri` if it belongs to this template, else None."""
        if uri.startswith(self.prefix) and uri.endswith(self.suffix):
            slug = uri[len(self.prefix) : len(uri) - len(self.suffix)]
            if slug and "/" not in slug:
                return slug
        return None

    def definition(self) -> dict:
        return {
            "uriTemplate": self.uri_template,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "mimeType": self.mime_type,
        }


@dataclass(frozen=True)
class Resource:
    """One concrete resource with a fixed URI (listed first by `resources/list`)."""

    uri: str
    name: str
    title: str
    description: str
    mime_type: str
    read: Callable  # (ctx) -> dict (a resource contents object)
    cacheable: bool = False

    def definition(self) -> dict:
        return {
            "uri": self.uri,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "mimeType": self.mime_type,
        }


def _add(table: dict, key: str, item, kind: str) -> None:
    if key in table:
        raise ImproperlyConfigured(f"MCP {kind} {key!r} is declared twice")
    table[key] = item


class Features:
    """Tools, prompts, resources and resource templates declared together (one module's),
    for a `Server` to include."""

    def __init__(self) -> None:
        self.tools: dict[str, Tool] = {}
        self.prompts: dict[str, Prompt] = {}
        self.resources: dict[str, Resource] = {}
        self.templates: dict[str, ResourceTemplate] = {}

    def tool(
        self,
        *,
        name: str,
        title: str,
        description: str,
        input_schema: dict,
        output_schema: dict | None,
        annotations: dict = READ_ONLY,
        interactive: bool = False,
        cacheable: bool = False,
    ):
        """Declare a tool whose handler is `handler(arguments, ctx) -> ToolResult` (read-only
        unless `annotations` say otherwise; `output_schema=None` for unstructured results)."""

        def register(handler):
            if output_schema is not None:
                compile_schema(output_schema)
            declared = Tool(
                name, title, description, input_schema, output_schema, handler, annotations,
                compile_schema(input_schema), interactive, cacheable,
            )  # fmt: skip
            _add(self.tools, name, declared, "tool")
            return handler

        return register

    def prompt(
        self,
        *,
        name: str,
        title: str,
        description: str,
        arguments: tuple[PromptArgument, ...],
        cacheable: bool = False,
    ):
        """Declare a prompt; its arguments are strings, validated against a schema built here."""
        schema = {
            "type": "object",
            "properties": {
                a.name: {"type": "string", "minLength": 1, "description": a.description}
                for a in arguments
            },
            "required": [a.name for a in arguments if a.required],
        }

        def register(handler):
            declared = Prompt(
                name, title, description, arguments, handler, compile_schema(schema), cacheable
            )
            _add(self.prompts, name, declared, "prompt")
            return handler

        return register

    def resource(self, item: Resource) -> Resource:
        _add(self.resources, item.uri, item, "resource")
        return item

    def resource_template(self, template: ResourceTemplate) -> ResourceTemplate:
        _add(self.templates, template.uri_template, template, "resource template")
        return template

    def include(self, *others: Features) -> None:
        """Add the declarations of `others`; a name declared twice is refused."""
        for other in others:
            for name, tool in other.tools.items():
                _add(self.tools, name, tool, "tool")
            for name, prompt in other.prompts.items():
                _add(self.prompts, name, prompt, "prompt")
            for uri, resource in other.resources.items():
                _add(self.resources, uri, resource, "resource")
            for uri, template in other.templates.items():
                _add(self.templates, uri, template, "resource template")


# Every method accepts `_meta`; what a transport or the dispatcher reads from it is checked
# with the method's own params (a progress token is a string or a number: every revision's
# basic/utilities/progress). The modern era's required fields are checked before the method
# is looked up (core/dispatcher.py).
META_SCHEMA = {
    "type": "object",
    "properties": {"progressToken": {"type": ["string", "number"]}},
}


class MethodTable:
    """JSON-RPC method name → `Method`, filled by the `method` decorator, which refuses a
    name registered twice."""

    def __init__(self) -> None:
        self.methods: dict[str, Method] = {}

    def method(
        self,
        name: str,
        *,
        params: dict | None = None,
        eras: frozenset = BOTH_ERAS,
        cache_hints: bool = False,
        notification: bool = False,
        stream: bool = False,
    ):
        """Register `handler(params, ctx) -> dict` as JSON-RPC method `name`."""
        schema = dict(params or {"type": "object"})
        schema["properties"] = {"_meta": META_SCHEMA, **schema.get("properties", {})}

        def register(handler):
            declared = Method(
                name, handler, schema, eras, cache_hints, notification, stream,
                compile_schema(schema),
            )  # fmt: skip
            _add(self.methods, name, declared, "method")
            return handler

        return register

    def include_methods(self, other: MethodTable) -> None:
        for name, declared in other.methods.items():
            _add(self.methods, name, declared, "method")
