"""The fixed pipeline every transport feeds: bytes in, a `Reply` out, for one `Server`.

parse (-32700, id null) → envelope (-32600; params nested too deep: -32602) → era rules on
`_meta` and the version and method headers (modern: -32602/-32020/-32022) → method lookup
(-32601) → params schema (-32602) → the Mcp-Name header against the validated params (-32020)
→ result cache → handler → serialize. Validation comes before anything reads the params: a
cache key, the choice of a live call, a log line or a header comparison only ever sees params
that passed their method's schema, so a wrongly-shaped params object is always -32602, never
an exception.

The modern era rules on `_meta` run before the method lookup, as the 2026-07-28
compatibility matrix expects (a legacy `initialize` reaching the modern path is rejected for
its missing metadata with 400, not 404). Notifications and client responses get no reply;
JSON-RPC batches are accepted only from 2025-03-26 clients, the one revision that requires
them. `prepare()` stops after validation and returns a `Call`, so a transport can decide how
to answer (JSON, a live SSE stream, a listen stream) from validated facts and then run it.
"""

from __future__ import annotations

import base64
import binascii
import logging
import time
from dataclasses import dataclass, replace
from typing import Any

import orjson

from . import client_requests
from . import protocol as p
from .context import RequestContext
from .errors import (
    HeaderMismatch,
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    ParseError,
    UnsupportedProtocolVersion,
    as_jsonrpc_error,
    wire_error,
)
from .registry import MAX_PARAMS_DEPTH, Method, first_error, too_deep
from .server import CallEvent

logger = logging.getLogger("mcp_endpoint")


@dataclass(slots=True)
class Reply:
    """What to send back: a JSON value (None = nothing, HTTP 202) and the HTTP status."""

    body: Any
    status: int = 200

    def encode(self) -> bytes:
        return orjson.dumps(self.body)


@dataclass(slots=True)
class Call:
    """A request that passed every check up to its handler: method, validated params and the
    context the handler will see. `run()` answers it (result cache, then handler)."""

    dispatcher: Dispatcher
    method: Method
    params: dict
    ctx: RequestContext

    @property
    def request_id(self):
        return self.ctx.request_id

    def run(self) -> tuple[dict, int]:
        started = time.perf_counter()
        try:
            result = self.dispatcher.result(self)
        except Exception as exc:
            answer = wire_error(exc, self.ctx.request_id, self.ctx.era)
        else:
            answer = {"jsonrpc": "2.0", "id": self.ctx.request_id, "result": result}, 200
        server = self.dispatcher.server
        if server.observers:  # analytics: Server.observe
            elapsed = time.perf_counter() - started
            server.observed(CallEvent(self.method.name, self.params, answer[0], self.ctx, elapsed))
        return answer


def _valid_id(value) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


class Dispatcher:
    def __init__(self, server) -> None:
        self.server = server

    # --- transport entry points -----------------------------------------------------------
    def handle_payload(self, raw: bytes | str, ctx: RequestContext) -> Reply:
        """Handle one transport message (an HTTP body or a stdio line)."""
        try:
            message = orjson.loads(raw)
        except orjson.JSONDecodeError:
            body, status = wire_error(ParseError(), None, ctx.era)
            return Reply(body, status)
        return self.handle_decoded(message, ctx)

    def handle_decoded(self, message, ctx: RequestContext) -> Reply:
        """Handle one transport message its adapter has already decoded from JSON."""
        if isinstance(message, list):
            return self._handle_batch(message, ctx)
        body, status = self.handle_message(message, ctx)
        return Reply(body, 202 if body is None else status)

    def handle_message(self, message, base: RequestContext, *, in_batch: bool = False):
        """One JSON-RPC message → (response object or None, HTTP status)."""
        prepared = self.prepare(message, base, in_batch=in_batch)
        return prepared.run() if isinstance(prepared, Call) else (prepared.body, prepared.status)

    # --- the pipeline up to the handler ---------------------------------------------------
    def prepare(self, message, base: RequestContext, *, in_batch: bool = False) -> Call | Reply:
        """Every check a message must pass before its handler may run: a `Call` ready to run,
        or the `Reply` (an error, or nothing for a notification or response) it gets instead."""
        era = base.era
        if not isinstance(message, dict):
            return _error(InvalidRequest("A JSON-RPC message must be an object"), None, era)
        request_id = message.get("id")
        has_id = "id" in message
        if not has_id or not _valid_id(request_id):
            request_id = None
        if message.get("jsonrpc") != "2.0":
            return _error(InvalidRequest('"jsonrpc" must be "2.0"'), request_id, era)
        method_name = message.get("method")
        if method_name is None and has_id and ("result" in message or "error" in message):
            if era == p.MODERN:
                error = InvalidRequest("Clients must not send JSON-RPC responses in 2026-07-28")
                return _error(error, request_id, era)
            # The answer to a request a live call sent the client (elicitation, sampling,
            # roots); one to a request we never sent is accepted and ignored.
            if base.deliver is not None:
                base.deliver(message)
            return Reply(None, 202)
        if has_id and request_id is None:
            error = InvalidRequest('"id" must be a string or an integer (not null, bool or float)')
            return _error(error, None, era)
        if not isinstance(method_name, str):
            return _error(InvalidRequest('"method" must be a string'), request_id, era)
        params = message.get("params", {})
        if not isinstance(params, dict):
            return _error(InvalidRequest('"params" must be an object'), request_id, era)
        meta = params.get(p.META)
        if era is None:  # stdio: a request carrying the modern version field is a modern one
            modern = isinstance(meta, dict) and p.META_PROTOCOL_VERSION in meta
            era = p.MODERN if modern else p.LEGACY
        if too_deep(params):
            if not has_id:
                return Reply(None, 202)
            error = InvalidParams(
                f"params nest objects or arrays more than {MAX_PARAMS_DEPTH} levels deep; "
                "no method here takes anything that deep: send a flatter params object"
            )
            return _error(error, request_id, era)
        ctx = replace(base, era=era, request_id=request_id, server=self.server)
        if not has_id:
            self._notify(method_name, params, ctx)
            return Reply(None, 202)
        try:
            entry = self._checked(method_name, params, meta, ctx, in_batch)
        except Exception as exc:
            return _error(exc, request_id, era)
        return Call(self, entry, params, ctx)

    def _checked(self, method_name: str, params: dict, meta, ctx, in_batch: bool) -> Method:
        if ctx.era == p.MODERN:
            _check_meta(method_name, meta, ctx)
        entry = self.server.methods.get(method_name)
        if entry is None or entry.notification or ctx.era not in entry.eras:
            raise MethodNotFound(
                self._not_found_message(method_name, ctx.era), data={"method": method_name}
            )
        if in_batch and method_name == p.INITIALIZE:
            raise InvalidRequest("initialize must not be part of a JSON-RPC batch")
        problem = first_error(entry.validator, params, "params")
        if problem:
            raise InvalidParams(f"Invalid params for {method_name}: {problem}")
        if ctx.era == p.MODERN and ctx.headers is not None:
            _check_name_header(method_name, params, ctx.headers)
        if isinstance(meta, dict):
            ctx.progress_token = meta.get(p.META_PROGRESS_TOKEN)
        return entry

    def _notify(self, method_name: str, params: dict, ctx: RequestContext) -> None:
        entry = self.server.methods.get(method_name)
        if entry is None or not entry.notification or ctx.era not in entry.eras:
            return  # unknown notifications are ignored (JSON-RPC: never answered)
        if first_error(entry.validator, params):
            return  # nor are malformed ones: there is no one to tell
        try:
            entry.handler(params, ctx)
        except Exception as exc:
            as_jsonrpc_error(exc)

    def _handle_batch(self, messages: list, ctx: RequestContext) -> Reply:
        version = ctx.protocol_version
        if ctx.era == p.MODERN or version != p.BATCH_VERSION:
            error = InvalidRequest(
                "JSON-RPC batches are only accepted from protocol version 2025-03-26 clients "
                f"(this request declares {version or 'another version'}); send one message "
                "per request"
            )
            return _error(error, None, ctx.era)
        if not messages:
            return _error(InvalidRequest("Empty JSON-RPC batch"), None, ctx.era)
        replies = [self.handle_message(m, ctx, in_batch=True)[0] for m in messages]
        replies = [r for r in replies if r is not None]
        return Reply(replies or None, 200 if replies else 202)

    def _not_found_message(self, method_name: str, era: str) -> str:
        message = f"Method not found: {method_name}"
        other = self.server.methods.get(method_name)
        if other is not None and not other.notification:
            if era == p.MODERN:
                message += (
                    " (it exists only in the legacy protocol versions, 2025-11-25 and earlier)"
                )
            else:
                message += " (it exists only in protocol version 2026-07-28)"
        return message

    # --- the handler ----------------------------------------------------------------------
    def result(self, call: Call) -> dict:
        """The result object for a prepared call: from the server's result cache when it may
        answer (validated params only reach here), else from the handler."""
        server, ctx = self.server, call.ctx
        cache = server.result_cache
        key = None
        if cache is not None and server.cacheable(call.method.name, call.params, ctx):
            key = cache.key(call.method.name, call.params, ctx)
        if key is not None:
            cached = cache.get(key)
            if cached is not None:
                return cached
        result = self._run(call)
        if key is not None:
            cache.put(key, result)
        return result

    def _run(self, call: Call) -> dict:
        entry, params, ctx = call.method, call.params, call.ctx
        if ctx.era != p.MODERN:
            return entry.handler(params, ctx)
        client_requests.begin(entry.name, params, ctx)
        try:
            result = entry.handler(params, ctx)
        except client_requests.InputRequired as exc:
            # MRTR (SEP-2322): the handler needs the client's input first.
            result = client_requests.input_required_result(exc, entry.name, params, ctx)
        else:
            result["resultType"] = "complete"
            if entry.cache_hints and self.server.cache_ttl_ms is not None:
                result["ttlMs"] = self.server.cache_ttl_ms
                result["cacheScope"] = self.server.cache_scope
        result.setdefault(p.META, {})[p.META_SERVER_INFO] = self.server.info()
        return result


def _error(exc: BaseException, request_id, era) -> Reply:
    body, status = wire_error(exc, request_id, era)
    return Reply(body, status)


def _check_meta(method_name: str, meta, ctx: RequestContext) -> None:
    """2026-07-28 basic/index §_meta and basic/transports/streamable-http §Server Validation:
    what the request says about its era, before the method is looked up."""
    headers = ctx.headers
    declared = (headers or {}).get("mcp-protocol-version")
    if declared is not None and declared not in p.MODERN_VERSIONS:
        # An unknown revision is named as such first: complaining about `_meta` fields of a
        # revision the server does not speak would send the client after the wrong problem.
        raise UnsupportedProtocolVersion(supported=list(p.SUPPORTED_VERSIONS), requested=declared)
    if not isinstance(meta, dict):
        raise InvalidParams(
            f"Missing params._meta: every {p.MODERN_VERSIONS[0]} request must carry "
            f"{p.META_PROTOCOL_VERSION!r} and {p.META_CLIENT_CAPABILITIES!r}"
        )
    missing = [k for k in (p.META_PROTOCOL_VERSION, p.META_CLIENT_CAPABILITIES) if k not in meta]
    if missing:
        raise InvalidParams(f"Missing required params._meta field(s): {', '.join(missing)}")
    version = meta[p.META_PROTOCOL_VERSION]
    if not isinstance(version, str):
        raise InvalidParams(f"params._meta[{p.META_PROTOCOL_VERSION!r}] must be a string")
    capabilities = meta[p.META_CLIENT_CAPABILITIES]
    if not isinstance(capabilities, dict):
        raise InvalidParams(f"params._meta[{p.META_CLIENT_CAPABILITIES!r}] must be an object")
    if headers is not None:
        _check_version_headers(method_name, version, headers)
    if version not in p.MODERN_VERSIONS:
        raise UnsupportedProtocolVersion(supported=list(p.SUPPORTED_VERSIONS), requested=version)
    level = meta.get(p.META_LOG_LEVEL)
    if level is not None and level not in p.LOG_LEVELS:
        raise InvalidParams(
            f"params._meta[{p.META_LOG_LEVEL!r}] must be one of {', '.join(p.LOG_LEVELS)}"
        )
    client_info = meta.get(p.META_CLIENT_INFO)
    ctx.protocol_version = version
    ctx.client_capabilities = capabilities
    ctx.client_info = client_info if isinstance(client_info, dict) else None
    ctx.log_level = level


BASE64_PREFIX, BASE64_SUFFIX = "=?base64?", "?="


def decode_header_value(value: str) -> str:
    """A mirrored header value, decoding the `=?base64?…?=` form (§Value Encoding)."""
    if value.startswith(BASE64_PREFIX) and value.endswith(BASE64_SUFFIX) and len(value) >= 11:
        try:
            return base64.b64decode(value[9:-2], validate=True).decode()
        except (binascii.Error, UnicodeDecodeError) as exc:
            raise HeaderMismatch(f"Malformed Base64 header value {value!r}") from exc
    return value


def _check_version_headers(method_name: str, version: str, headers) -> None:
    header_version = headers.get("mcp-protocol-version")
    if header_version != version:
        raise HeaderMismatch(
            f"Header mismatch: MCP-Protocol-Version header {header_version!r} does not match "
            f"params._meta[{p.META_PROTOCOL_VERSION!r}] {version!r}"
        )
    header_method = headers.get("mcp-method")
    if header_method is None:
        raise HeaderMismatch("Header mismatch: the Mcp-Method header is required")
    if header_method != method_name:
        raise HeaderMismatch(
            f"Header mismatch: Mcp-Method header {header_method!r} does not match body "
            f"method {method_name!r}"
        )


def _check_name_header(method_name: str, params: dict, headers) -> None:
    """Mcp-Name mirrors params.name or params.uri, which have passed their schema."""
    field = p.NAME_BEARING.get(method_name)
    if field is None:
        return
    header_name = headers.get("mcp-name")
    if header_name is None:
        raise HeaderMismatch(f"Header mismatch: {method_name} requires the Mcp-Name header")
    decoded = decode_header_value(header_name)
    if decoded != params[field]:
        raise HeaderMismatch(
            f"Header mismatch: Mcp-Name header {decoded!r} does not match body "
            f"params.{field} {params[field]!r}"
        )
