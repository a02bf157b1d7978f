"""The conformance server: the glossary's server plus the official conformance suite's
fixtures, tools, resources and prompts with the exact names and content its scenarios call
(@modelcontextprotocol/conformance 0.1.16 and 0.2.0-alpha.12, `src/scenarios/server/*.ts`; the
suite's reference "everything server" has the same set).

A second `Server` that lives in the test suite, never in the product: the live conformance
runs start a server process with `MCP_SERVER=tests.mcp.conformance_server.server`, and
in-process tests use `server` directly. The fixtures are declared the way the glossary's own
features are and exercise what the engine really does: every content type, binary resources,
URI templates, logging and progress notifications on a call's stream, and asking the client
for input (elicitation, sampling, roots) in both eras through `client_requests.ask`:
server-to-client requests in the legacy era, MRTR in the modern one. None is `cacheable`.
"""

import base64
import io
import struct
import time
import wave
import zlib

import orjson

from mcp_endpoint.core import notifications
from mcp_endpoint.core import protocol as p
from mcp_endpoint.core.client_requests import ask, declares, elicitation, list_roots, sampling
from mcp_endpoint.core.notifications import progress
from mcp_endpoint.core.registry import (
    Features,
    PromptArgument,
    Resource,
    ResourceTemplate,
    ToolResult,
)
from mcp_endpoint.features.server import build_server

fixtures = Features()

NO_ARGUMENTS = {"type": "object", "properties": {}, "additionalProperties": False}
FIXTURE = {"readOnlyHint": True, "openWorldHint": False}
STEP_SECONDS = 0.05  # the ~50 ms the scenarios ask for between notifications


def _png_1x1_red() -> bytes:
    """A real 1×1 red PNG (signature, IHDR, IDAT, IEND, each chunk with its CRC)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1×1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter byte + one red pixel
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def _wav_silence() -> bytes:
    """A real WAV file: 10 ms of 8 kHz mono 8-bit silence."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(8000)
        out.writeframes(b"\x80" * 80)
    return buffer.getvalue()


PNG_BASE64 = base64.b64encode(_png_1x1_red()).decode()
WAV_BASE64 = base64.b64encode(_wav_silence()).decode()
IMAGE = {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


def _fixture_tool(name: str, description: str, input_schema: dict = NO_ARGUMENTS):
    # Every fixture whose name says it streams, logs or asks talks to the client while it runs.
    interactive = not name.endswith(("_text", "_content", "_resource", "_types", "_handling"))
    return fixtures.tool(
        name=name,
        title=name,
        description=description,
        input_schema=input_schema,
        output_schema=None,
        annotations=FIXTURE,
        interactive=interactive and name != "json_schema_2020_12_tool",
    )


# --- notifications on the call's stream -----------------------------------------------------
def log(ctx, level: str, data) -> None:
    notifications.log(ctx, level, data, logger="conformance")


# --- content ----------------------------------------------------------------------------------
@_fixture_tool("test_simple_text", "Returns a simple text block.")
def simple_text(arguments: dict, ctx) -> ToolResult:
    return ToolResult("This is a simple text response for testing.")


@_fixture_tool("test_image_content", "Returns a 1×1 red PNG image.")
def image_content(arguments: dict, ctx) -> ToolResult:
    return ToolResult("", content=(IMAGE,))


@_fixture_tool("test_audio_content", "Returns a short WAV clip of silence.")
def audio_content(arguments: dict, ctx) -> ToolResult:
    return ToolResult("", content=({"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"},))


EMBEDDED = {
    "type": "resource",
    "resource": {
        "uri": "test://embedded-resource",
        "mimeType": "text/plain",
        "text": "This is an embedded resource content.",
    },
}


@_fixture_tool("test_embedded_resource", "Returns an embedded text resource.")
def embedded_resource(arguments: dict, ctx) -> ToolResult:
    return ToolResult("", content=(EMBEDDED,))


@_fixture_tool("test_multiple_content_types", "Returns text, an image and an embedded resource.")
def multiple_content_types(arguments: dict, ctx) -> ToolResult:
    mixed = {
        "type": "resource",
        "resource": {
            "uri": "test://mixed-content-resource",
            "mimeType": "application/json",
            "text": orjson.dumps({"test": "data", "value": 123}).decode(),
        },
    }
    return ToolResult("", content=(_text("Multiple content types test:"), IMAGE, mixed))


@_fixture_tool("test_error_handling", "Always fails with a tool execution error.")
def error_handling(arguments: dict, ctx) -> ToolResult:
    return ToolResult.error("This tool intentionally returns an error for testing")


@_fixture_tool(
    "json_schema_2020_12_tool",
    "Tool with JSON Schema 2020-12 features",
    {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        # SEP-2106's wider vocabulary (0.2.0's version of the scenario): kept verbatim on the wire.
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": False,
    },
)
def json_schema_2020_12(arguments: dict, ctx) -> ToolResult:
    return ToolResult(f"Received: {orjson.dumps(arguments).decode()}")


# --- notifications ------------------------------------------------------------------------------
@_fixture_tool(
    "test_tool_with_logging", "Sends three info log messages about 50 ms apart, then returns."
)
def tool_with_logging(arguments: dict, ctx) -> ToolResult:
    log(ctx, "info", "Tool execution started")
    time.sleep(STEP_SECONDS)
    log(ctx, "info", "Tool processing data")
    time.sleep(STEP_SECONDS)
    log(ctx, "info", "Tool execution completed")
    return ToolResult("Tool with logging executed successfully")


@_fixture_tool(
    "test_logging_tool",
    "Sends log messages only when the request asked for them (a logLevel in _meta).",
)
def logging_tool(arguments: dict, ctx) -> ToolResult:
    log(ctx, "info", "Logging tool ran")
    return ToolResult("Logging tool executed")


@_fixture_tool(
    "test_tool_with_progress", "Reports progress 0/100, 50/100 and 100/100 about 50 ms apart."
)
def tool_with_progress(arguments: dict, ctx) -> ToolResult:
    for done in (0, 50, 100):
        if done:
            time.sleep(STEP_SECONDS)
        progress(ctx, done, 100)
    return ToolResult("Tool with progress executed successfully")


@_fixture_tool(
    "test_reconnection",
    "Closes the SSE stream mid-call (SEP-1699 polling); the result arrives after the client "
    "reconnects with Last-Event-ID.",
)
def reconnection(arguments: dict, ctx) -> ToolResult:
    close = getattr(ctx, "close_stream", None)
    if close is not None:
        close()
    time.sleep(STEP_SECONDS * 4)
    return ToolResult("Reconnection test completed")


# --- asking the client --------------------------------------------------------------------------
def _elicitation_text(answer: dict) -> str:
    content = orjson.dumps(answer.get("content", {})).decode()
    return f"Elicitation completed: action={answer['action']}, content={content}"


@_fixture_tool(
    "test_sampling",
    "Asks the client's model to complete a prompt (sampling/createMessage).",
    {
        "type": "object",
        "properties": {"prompt": {"type": "string", "description": "The prompt to send"}},
        "required": ["prompt"],
    },
)
def test_sampling(arguments: dict, ctx) -> ToolResult:
    answer = ask(ctx, {"sample": sampling(arguments["prompt"], 100)})["sample"]
    content = answer["content"]
    blocks = content if isinstance(content, list) else [content]
    text = " ".join(b.get("text", "") for b in blocks if isinstance(b, dict))
    return ToolResult(f"LLM response: {text}")


@_fixture_tool(
    "test_elicitation",
    "Asks the user for a username and an email address (elicitation/create).",
    {
        "type": "object",
        "properties": {"message": {"type": "string", "description": "The message to show"}},
        "required": ["message"],
    },
)
def test_elicitation(arguments: dict, ctx) -> ToolResult:
    schema = {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }
    answer = ask(ctx, {"user": elicitation(arguments["message"], schema)})["user"]
    content = orjson.dumps(answer.get("content", {})).decode()
    return ToolResult(f"User response: action={answer['action']}, content={content}")


@_fixture_tool(
    "test_elicitation_sep1034_defaults",
    "Asks for input with a default value for every primitive type (SEP-1034).",
)
def elicitation_sep1034_defaults(arguments: dict, ctx) -> ToolResult:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verified user", "default": True},
        },
        "required": [],
    }
    message = "Please review and update the form fields with defaults"
    answer = ask(ctx, {"form": elicitation(message, schema)})["form"]
    return ToolResult(_elicitation_text(answer))


@_fixture_tool(
    "test_elicitation_sep1330_enums",
    "Asks for input with all five enum forms: untitled and titled, single and multi select, "
    "and the legacy enumNames (SEP-1330).",
)
def elicitation_sep1330_enums(arguments: dict, ctx) -> ToolResult:
    options = ["option1", "option2", "option3"]
    schema = {
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Select one option",
                "enum": options,
            },
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"},
                ],
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": {"type": "string", "enum": options},
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"},
                    ]
                },
            },
        },
        "required": [],
    }
    answer = ask(ctx, {"enums": elicitation("Please select options from the enum fields", schema)})
    return ToolResult(_elicitation_text(answer["enums"]))


@_fixture_tool(
    "test_missing_capability",
    "Needs the client's sampling capability: without it the call is refused with -32021.",
)
def missing_capability(arguments: dict, ctx) -> ToolResult:
    answer = ask(ctx, {"probe": sampling("Say hello", 10)})["probe"]
    return ToolResult(f"Sampling answered: {orjson.dumps(answer.get('content')).decode()}")


NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


@_fixture_tool(
    "test_streaming_elicitation",
    "Asks the user for their name: an input request, never a request on the response stream.",
)
def streaming_elicitation(arguments: dict, ctx) -> ToolResult:
    answer = ask(ctx, {"user_name": elicitation("What is your name?", NAME_SCHEMA)})
    return ToolResult(_elicitation_text(answer["user_name"]))


# --- MRTR (SEP-2322): test_input_required_result_* ---------------------------------------------
def _accepted(answer: dict, field: str, default: str = "") -> str:
    content = answer.get("content") if answer.get("action") == "accept" else None
    value = content.get(field) if isinstance(content, dict) else None
    return str(value) if value is not None else default


def _sampled_text(answer: dict) -> str:
    content = answer.get("content")
    blocks = content if isinstance(content, list) else [content]
    return " ".join(b.get("text", "") for b in blocks if isinstance(b, dict))


@_fixture_tool("test_input_required_result_elicitation", "Asks for the user's name, then greets.")
def irr_elicitation(arguments: dict, ctx) -> ToolResult:
    answer = ask(ctx, {"user_name": elicitation("What is your name?", NAME_SCHEMA)})["user_name"]
    return ToolResult(f"Hello, {_accepted(answer, 'name', 'stranger')}!")


@_fixture_tool("test_input_required_result_sampling", "Asks the client's model a question.")
def irr_sampling(arguments: dict, ctx) -> ToolResult:
    answers = ask(ctx, {"capital_question": sampling("What is the capital of France?", 100)})
    return ToolResult(f"The model said: {_sampled_text(answers['capital_question'])}")


def _roots_text(answer: dict) -> str:
    uris = [r.get("uri", "") for r in answer["roots"] if isinstance(r, dict)]
    return f"Client roots: {', '.join(uris) or '(none)'}"


@_fixture_tool("test_input_required_result_list_roots", "Asks the client for its roots.")
def irr_list_roots(arguments: dict, ctx) -> ToolResult:
    return ToolResult(_roots_text(ask(ctx, {"client_roots": list_roots()})["client_roots"]))


CONFIRM_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


@_fixture_tool(
    "test_input_required_result_request_state",
    "Asks for a confirmation and checks the requestState echoed with the answer.",
)
def irr_request_state(arguments: dict, ctx) -> ToolResult:
    ask(ctx, {"confirm": elicitation("Please confirm", CONFIRM_SCHEMA)})
    if ctx.era == p.MODERN and not ctx.state_verified:
        return ToolResult.error("The answer came without the requestState this server issued.")
    return ToolResult("Confirmed: state-ok")


@_fixture_tool(
    "test_input_required_result_tampered_state",
    "Asks for a confirmation; a requestState that fails its integrity check is refused.",
)
def irr_tampered_state(arguments: dict, ctx) -> ToolResult:
    ask(ctx, {"confirm": elicitation("Please confirm", CONFIRM_SCHEMA)})
    return ToolResult("Confirmed: state-ok")


@_fixture_tool(
    "test_input_required_result_multiple_inputs",
    "Asks for a name (elicitation), a greeting (sampling) and the roots in one round.",
)
def irr_multiple_inputs(arguments: dict, ctx) -> ToolResult:
    answers = ask(
        ctx,
        {
            "user_name": elicitation("What is your name?", NAME_SCHEMA),
            "greeting": sampling("Generate a greeting", 50),
            "client_roots": list_roots(),
        },
    )
    name = _accepted(answers["user_name"], "name", "stranger")
    greeting = _sampled_text(answers["greeting"])
    return ToolResult(f"{greeting} {name}. {_roots_text(answers['client_roots'])}")


@_fixture_tool(
    "test_input_required_result_multi_round",
    "Asks for a name, then (in a second round) for a favourite colour.",
)
def irr_multi_round(arguments: dict, ctx) -> ToolResult:
    name = ask(ctx, {"step1": elicitation("Step 1: What is your name?", NAME_SCHEMA)})["step1"]
    color_schema = {
        "type": "object",
        "properties": {"color": {"type": "string"}},
        "required": ["color"],
    }
    color = ask(ctx, {"step2": elicitation("Step 2: What is your favorite color?", color_schema)})
    return ToolResult(
        f"{_accepted(name, 'name', 'stranger')} likes {_accepted(color['step2'], 'color', '?')}"
    )


@_fixture_tool(
    "test_input_required_result_capabilities",
    "Asks only for what the client declared it can answer (sampling and/or elicitation).",
)
def irr_capabilities(arguments: dict, ctx) -> ToolResult:
    wanted = {
        "user_name": elicitation("What is your name?", NAME_SCHEMA),
        "greeting": sampling("Generate a greeting", 50),
    }
    allowed = {k: r for k, r in wanted.items() if declares(ctx, r["method"])}
    if not allowed:
        return ToolResult("The client declared neither elicitation nor sampling.")
    answers = ask(ctx, allowed)
    parts = []
    if "greeting" in answers:
        parts.append(_sampled_text(answers["greeting"]))
    if "user_name" in answers:
        parts.append(_accepted(answers["user_name"], "name", "stranger"))
    return ToolResult(" ".join(parts))


# --- resources ----------------------------------------------------------------------------------
STATIC_TEXT = "This is the content of the static text resource."

fixtures.resource(
    Resource(
        uri="test://static-text",
        name="static-text",
        title="Static text",
        description="A static text resource for testing",
        mime_type="text/plain",
        read=lambda ctx: {
            "uri": "test://static-text",
            "mimeType": "text/plain",
            "text": STATIC_TEXT,
        },
    )
)
fixtures.resource(
    Resource(
        uri="test://static-binary",
        name="static-binary",
        title="Static binary",
        description="A static binary resource (a 1×1 PNG) for testing",
        mime_type="image/png",
        read=lambda ctx: {
            "uri": "test://static-binary",
            "mimeType": "image/png",
            "blob": PNG_BASE64,
        },
    )
)
fixtures.resource(
    Resource(
        uri="test://watched-resource",
        name="watched-resource",
        title="Watched resource",
        description="A resource the suite subscribes to",
        mime_type="text/plain",
        read=lambda ctx: {
            "uri": "test://watched-resource",
            "mimeType": "text/plain",
            "text": "This resource can be watched for changes.",
        },
    )
)


def _read_template(identifier: str, ctx) -> dict:
    data = {"id": identifier, "templateTest": True, "data": f"Data for ID: {identifier}"}
    return {
        "uri": f"test://template/{identifier}/data",
        "mimeType": "application/json",
        "text": orjson.dumps(data).decode(),
    }


fixtures.resource_template(
    ResourceTemplate(
        uri_template="test://template/{id}/data",
        name="template",
        title="Template resource",
        description="A resource template with parameter substitution",
        mime_type="application/json",
        prefix="test://template/",
        suffix="/data",
        read=_read_template,
        complete=lambda prefix: [],
    )
)


# --- prompts ------------------------------------------------------------------------------------
def _user(content: dict) -> dict:
    return {"role": "user", "content": content}


@fixtures.prompt(
    name="test_simple_prompt",
    title="Simple prompt",
    description="A simple prompt without arguments",
    arguments=(),
)
def simple_prompt(arguments: dict, ctx) -> dict:
    return {"messages": [_user(_text("This is a simple prompt for testing."))]}


@fixtures.prompt(
    name="test_prompt_with_arguments",
    title="Prompt with arguments",
    description="A prompt with required arguments",
    arguments=(
        PromptArgument("arg1", "First test argument"),
        PromptArgument("arg2", "Second test argument"),
    ),
)
def prompt_with_arguments(arguments: dict, ctx) -> dict:
    text = f"Prompt with arguments: arg1='{arguments['arg1']}', arg2='{arguments['arg2']}'"
    return {"messages": [_user(_text(text))]}


@fixtures.prompt(
    name="test_prompt_with_embedded_resource",
    title="Prompt with embedded resource",
    description="A prompt that includes an embedded resource",
    arguments=(PromptArgument("resourceUri", "URI of the resource to embed"),),
)
def prompt_with_embedded_resource(arguments: dict, ctx) -> dict:
    embedded = {
        "type": "resource",
        "resource": {
            "uri": arguments["resourceUri"],
            "mimeType": "text/plain",
            "text": "Embedded resource content for testing.",
        },
    }
    return {
        "messages": [_user(embedded), _user(_text("Please process the embedded resource above."))]
    }


@fixtures.prompt(
    name="test_prompt_with_image",
    title="Prompt with image",
    description="A prompt that includes image content",
    arguments=(),
)
def prompt_with_image(arguments: dict, ctx) -> dict:
    return {"messages": [_user(IMAGE), _user(_text("Please analyze the image above."))]}


@fixtures.prompt(
    name="test_input_required_result_prompt",
    title="Prompt needing input",
    description="A prompt that first asks the user which context to use (MRTR on prompts/get)",
    arguments=(),
)
def input_required_prompt(arguments: dict, ctx) -> dict:
    schema = {
        "type": "object",
        "properties": {"context": {"type": "string"}},
        "required": ["context"],
    }
    answer = ask(ctx, {"user_context": elicitation("What context should the prompt use?", schema)})
    context = _accepted(answer["user_context"], "context", "general")
    return {"messages": [_user(_text(f"Answer using this context: {context}"))]}


server = build_server()
server.include(fixtures)
