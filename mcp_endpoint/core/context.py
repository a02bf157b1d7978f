"""What a method handler may know about the request it serves, whatever the transport.

A transport builds one `RequestContext` per HTTP request (or one per stdio line) with the
transport-level facts (era chosen by the `MCP-Protocol-Version` header, the MCP headers to
validate, whether it can push notifications); the dispatcher fills in the
per-message facts (the server, request id, client info and capabilities from `_meta`,
progress token) once the params have passed their schema. `session`, `notify`,
`send_request`, `close_stream` and `deliver` are seams for the transports; they are None
until a transport provides them.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class RequestContext:
    transport: str  # "http" | "stdio"
    # "legacy" | "modern"; None on stdio, where each message's `_meta` decides.
    era: str | None = None
    protocol_version: str | None = None
    # The transport delivers notifications outside a call's own response (HTTP streams:
    # resource updates, list changes, subscriptions/listen); stdio has no such channel yet.
    push: bool = False
    server: Any = None  # the Server being served (set by the dispatcher)
    client_info: dict | None = None
    client_capabilities: dict | None = None
    log_level: str | None = None
    session: Any = None
    notify: Callable[[dict], None] | None = None
    request_id: str | int | None = None
    progress_token: str | int | float | None = None
    # Lower-cased MCP request headers (HTTP only), checked against the body in the modern era.
    headers: Mapping[str, str] | None = None
    # Asking the client for input (core/client_requests.ask): the legacy transports' way to
    # send a JSON-RPC request to the client and wait for its answer (None: no channel to the
    # client), and the modern era's answers so far (MRTR inputResponses plus those the
    # requestState carries) with whether a requestState was presented and verified.
    send_request: Callable[[str, dict], dict] | None = None
    # A client's JSON-RPC response to a request a live call sent it (legacy HTTP: it may reach
    # any process; transports/answers.py). None: such responses are ignored.
    deliver: Callable[[dict], Any] | None = None
    # Ending the call's SSE response mid-call (SEP-1699 polling; transports/calls.py): the rest
    # of the call reaches the client on its GET with Last-Event-ID. None: the call cannot.
    close_stream: Callable[[], None] | None = None
    input_responses: dict | None = None
    answers: dict | None = None
    state_verified: bool = False
