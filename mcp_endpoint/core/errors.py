"""The one error hierarchy of the MCP endpoint and the one mapping to wire errors.

Every failure a caller can cause is a `JsonRpcError` subclass carrying its JSON-RPC code, a
message a person can act on, optional `data`, and the HTTP status the modern (2026-07-28)
Streamable HTTP binding assigns to it. `wire_error()` is the only place an exception becomes
an error object: anything that is not a `JsonRpcError` is logged here with its traceback
and answered with a generic -32603, so no exception text ever leaves the server.
"""

import logging

from django.conf import settings
from django.db import InterfaceError, OperationalError

from .protocol import MODERN

logger = logging.getLogger("mcp_endpoint")


class JsonRpcError(Exception):
    code = -32603
    default_message = "Internal error"
    # Status on the modern HTTP binding (2026-07-28 basic/transports/streamable-http §Server
    # Validation); the legacy binding answers JSON-RPC errors with 200 except where noted.
    http_status = 500
    legacy_http_status = 200

    def __init__(self, message: str | None = None, data=None):
        self.message = message or self.default_message
        self.data = data
        super().__init__(self.message)

    def code_for(self, era: str | None) -> int:
        return self.code

    def as_error(self, era: str | None = None) -> dict:
        error = {"code": self.code_for(era), "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error

    def status_for(self, era: str | None) -> int:
        return self.http_status if era == MODERN else self.legacy_http_status


class ParseError(JsonRpcError):
    code = -32700
    default_message = "Parse error: the body is not valid JSON"
    http_status = legacy_http_status = 400


class InvalidRequest(JsonRpcError):
    code = -32600
    default_message = "Invalid Request"
    http_status = legacy_http_status = 400


class MethodNotFound(JsonRpcError):
    code = -32601
    default_message = "Method not found"
    http_status = 404


class InvalidParams(JsonRpcError):
    code = -32602
    default_message = "Invalid params"
    http_status = 400


class InternalError(JsonRpcError):
    code = -32603
    default_message = "Internal error"
    http_status = legacy_http_status = 500


class ResourceNotFound(JsonRpcError):
    """-32002 in the legacy era (2025-11-25 server/resources §Error Handling); 2026-07-28
    retired that code and answers -32602 instead."""

    code = -32002
    default_message = "Resource not found"
    http_status = 400

    def code_for(self, era: str | None) -> int:
        return InvalidParams.code if era == MODERN else self.code


class HeaderMismatch(JsonRpcError):
    code = -32020
    default_message = "Header mismatch"
    http_status = legacy_http_status = 400


class MissingRequiredClientCapability(JsonRpcError):
    code = -32021
    default_message = "Missing required client capability"
    http_status = legacy_http_status = 400


class UnsupportedProtocolVersion(JsonRpcError):
    code = -32022
    default_message = "Unsupported protocol version"
    http_status = legacy_http_status = 400

    def __init__(self, *, supported: list[str], requested):
        super().__init__(
            f"Unsupported protocol version {requested!r}; this server supports "
            f"{', '.join(supported)}",
            data={"supported": supported, "requested": requested},
        )


class ServiceUnavailable(JsonRpcError):
    """The server cannot answer now but will shortly: its database is unreachable (restarting,
    failing over, out of connections). HTTP 503 with `Retry-After` in both eras, so a client
    backs off and retries instead of treating the answer as a fault of its request; JSON-RPC
    leaves -32000…-32099 to the server. `data.retryAfter` repeats the header for clients that
    only see the body (stdio, a proxy that drops headers)."""

    code = -32000
    http_status = legacy_http_status = 503

    def __init__(self, message: str | None = None, data=None):
        self.retry_after = settings.DATABASE_RETRY_AFTER
        super().__init__(
            message
            or "Service temporarily unavailable: the glossary's database cannot be reached "
            f"right now. Retry in {self.retry_after} s.",
            data if data is not None else {"retryAfter": self.retry_after},
        )


# Django's wrappers of a database that is down, restarting or unreachable (a refused connect,
# a connection the server terminated, a pool that timed out): never a fault of the request.
# Bad values are DataError/IntegrityError and stay -32603 or are refused before SQL.
UNAVAILABLE = (OperationalError, InterfaceError)


class RateLimited(JsonRpcError):
    """A client went over its request budget: HTTP 429 with Retry-After (both eras)."""

    code = -32029
    http_status = legacy_http_status = 429

    def __init__(self, message: str, *, retry_after: int, limit: str):
        super().__init__(message, {"retryAfter": retry_after, "limit": limit})
        self.retry_after = retry_after


def as_jsonrpc_error(exc: BaseException) -> JsonRpcError:
    """The `JsonRpcError` to answer `exc` with; unexpected exceptions are logged here, once."""
    if isinstance(exc, JsonRpcError):
        return exc
    if isinstance(exc, UNAVAILABLE):
        logger.warning("Database unavailable while handling an MCP message: %s", exc)
        return ServiceUnavailable()
    logger.exception("Unexpected error while handling an MCP message")
    return InternalError()


def wire_error(exc: BaseException, request_id=None, era: str | None = None) -> tuple[dict, int]:
    """The JSON-RPC error response for `exc` and the HTTP status it maps to in `era`."""
    error = as_jsonrpc_error(exc)
    return (
        {"jsonrpc": "2.0", "id": request_id, "error": error.as_error(era)},
        error.status_for(era),
    )


class ClientError(JsonRpcError):
    """The client answered a server-to-client request with a JSON-RPC error, or not at all."""

    code = -32603
    default_message = "The client could not answer the server's request"
