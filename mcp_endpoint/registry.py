"""The tables the dispatcher and the list methods read: JSON-RPC methods, tools, prompts and
resource templates, each filled once at import by a decorator that rejects duplicate names.

A method entry holds its params JSON Schema (compiled once, here), its handler, the protocol
eras it exists in, and whether its modern result carries caching hints. Tools and prompts
are declared next to their title, description and schemas; `tools/list`, `prompts/list` and
`resources/templates/list` are generated from these declarations, so nothing can drift.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from .protocol import LEGACY, MODERN

BOTH_ERAS = frozenset({LEGACY, MODERN})
LEGACY_ONLY = frozenset({LEGACY})


def compile_schema(schema: dict) -> Draft202012Validator:
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def first_error(validator: Draft202012Validator, instance: Any) -> str | None:
    """A readable message for the first violation, naming where it is, or None if valid."""
    if validator.is_valid(instance):
        return None
    error = best_match(validator.iter_errors(instance))
    where = ".".join(str(p) for p in error.absolute_path)
    return f"{where}: {error.message}" if where else error.message


@dataclass(frozen=True)
class Method:
    name: str
    handler: Callable
    params_schema: dict
    eras: frozenset
    cacheable: bool
    notification: bool
    validator: Draft202012Validator


METHODS: dict[str, Method] = {}


def method(
    name: str,
    *,
    params: dict | None = None,
    eras: frozenset = BOTH_ERAS,
    cacheable: bool = False,
    notification: bool = False,
):
    """Register `handler(params, ctx) -> dict` as JSON-RPC method `name`."""
    schema = params or {"type": "object"}

    def register(handler):
        if name in METHODS:
            raise ImproperlyConfigured(f"MCP method {name!r} is registered twice")
        METHODS[name] = Method(
            name, handler, schema, eras, cacheable, notification, compile_schema(schema)
        )
        return handler

    return register


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
    def error(cls, text: str) -> "ToolResult":
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
    validator: Draft202012Validator | None = None
    # Talks to the client while it runs (logs, progress, elicitation, sampling): the legacy
    # HTTP transport then runs it as a live call that may answer with an SSE stream.
    interactive: bool = False

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


TOOLS: dict[str, Tool] = {}
READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}


def tool(
    *,
    name: str,
    title: str,
    description: str,
    input_schema: dict,
    output_schema: dict | None,
    annotations: dict = READ_ONLY,
    interactive: bool = False,
):
    """Declare a tool whose handler is `handler(arguments, ctx) -> ToolResult` (read-only
    unless `annotations` say otherwise; `output_schema=None` for unstructured results)."""

    def register(handler):
        if name in TOOLS:
            raise ImproperlyConfigured(f"MCP tool {name!r} is declared twice")
        if output_schema is not None:
            compile_schema(output_schema)
        TOOLS[name] = Tool(
            name, title, description, input_schema, output_schema, handler, annotations,
            compile_schema(input_schema), interactive,
        )  # fmt: skip
        return handler

    return register


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
    validator: Draft202012Validator | None = None

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


PROMPTS: dict[str, Prompt] = {}


def prompt(*, name: str, title: str, description: str, arguments: tuple[PromptArgument, ...]):
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
        if name in PROMPTS:
            raise ImproperlyConfigured(f"MCP prompt {name!r} is declared twice")
        PROMPTS[name] = Prompt(name, title, description, arguments, handler, compile_schema(schema))
        return handler

    return register


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
    suffix: str = ""  # the URI after the slug, e.g. "/data" in "test://template/{id}/data"

    def definition(self) -> dict:
        return {
            "uriTemplate": self.uri_template,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "mimeType": self.mime_type,
        }


RESOURCE_TEMPLATES: dict[str, ResourceTemplate] = {}


def resource_template(template: ResourceTemplate) -> ResourceTemplate:
    if template.uri_template in RESOURCE_TEMPLATES:
        raise ImproperlyConfigured(f"MCP resource template {template.uri_template!r} twice")
    RESOURCE_TEMPLATES[template.uri_template] = template
    return template


@dataclass(frozen=True)
class Resource:
    """One concrete resource with a fixed URI (listed first by `resources/list`)."""

    uri: str
    name: str
    title: str
    description: str
    mime_type: str
    read: Callable  # (ctx) -> dict (a resource contents object)

    def definition(self) -> dict:
        return {
            "uri": self.uri,
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "mimeType": self.mime_type,
        }


RESOURCES: dict[str, Resource] = {}


def resource(item: Resource) -> Resource:
    if item.uri in RESOURCES:
        raise ImproperlyConfigured(f"MCP resource {item.uri!r} is declared twice")
    RESOURCES[item.uri] = item
    return item
