"""Asking the client for input while serving a request: elicitation, sampling, roots.

A handler calls `ask(ctx, {"key": elicit(...), ...})` and gets the client's answers by key;
how the questions travel depends on the era, never on the handler:

- **Modern (2026-07-28, MRTR, SEP-2322).** The server never sends requests. `ask` raises
  `InputRequired`; the dispatcher answers `resultType: "input_required"` with the questions
  still open and a `requestState`; the client retries the same call with `inputResponses`
  (and the state); the handler runs again from the start and `ask` now finds its answers.
  The state is signed with SECRET_KEY (`django.core.signing`), expires, and is bound to the
  method, the tool/prompt/resource name and a digest of the arguments, so a client can
  neither forge it nor replay it onto another call. It carries the answers of earlier rounds,
  which is what lets a handler ask in several rounds while the server stays stateless.
- **Legacy (2025-11-25 and earlier).** The transport sends each question as a JSON-RPC
  request (`elicitation/create`, `sampling/createMessage`, `roots/list`) on the call's own
  stream and waits for the answer (`ctx.send_request`): the SSE response of an HTTP POST
  (transports/answers.py), or the stdio pipe.

Either way, a question needing a capability the client did not declare is -32021
(MissingRequiredClientCapability) with `data.requiredCapabilities`, before anything is sent.
"""

from __future__ import annotations

import hashlib

import orjson
from django.core import signing

from . import protocol as p
from .errors import InvalidParams, InvalidRequest, MissingRequiredClientCapability
from .protocol import ELICIT, LIST_ROOTS, SAMPLE

# The client capability each client-side method needs (2025-11-25 client/* pages).
CAPABILITY = {ELICIT: "elicitation", SAMPLE: "sampling", LIST_ROOTS: "roots"}
# Methods whose requests may be answered with an InputRequiredResult (SEP-2322).
MRTR_METHODS = {p.TOOLS_CALL: "name", p.PROMPTS_GET: "name", p.RESOURCES_READ: "uri"}
INPUT_RESPONSES = "inputResponses"
REQUEST_STATE = "requestState"
# Long enough for a person to answer a form, short enough that an old state is worthless.
REQUEST_STATE_MAX_AGE = 15 * 60
_SALT = "mcp_endpoint.request_state"


def elicitation(message: str, schema: dict) -> dict:
    return {"method": ELICIT, "params": {"message": message, "requestedSchema": schema}}


def sampling(text: str, max_tokens: int) -> dict:
    return {
        "method": SAMPLE,
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
            "maxTokens": max_tokens,
        },
    }


def list_roots() -> dict:
    return {"method": LIST_ROOTS, "params": {}}


class InputRequired(Exception):
    """Raised by `ask` in the modern era: the questions the client has not answered yet."""

    def __init__(self, requests: dict[str, dict]):
        super().__init__(", ".join(requests))
        self.requests = requests


def client_capabilities(ctx) -> dict | None:
    """What the client declared: `_meta` (modern), `initialize` (legacy session); None when
    this transport cannot know (stateless legacy HTTP), in which case nothing is refused."""
    if ctx.client_capabilities is not None:
        return ctx.client_capabilities
    row = getattr(ctx.session, "row", None)
    if row is not None:
        return row.client_capabilities
    return getattr(ctx.session, "client_capabilities", None)


def declares(ctx, method: str) -> bool:
    caps = client_capabilities(ctx)
    return caps is None or CAPABILITY[method] in caps


def ask(ctx, requests: dict[str, dict]) -> dict[str, dict]:
    """The client's answers to `requests` ({key: {"method", "params"}}), by key."""
    missing = {
        CAPABILITY[r["method"]]: {} for r in requests.values() if not declares(ctx, r["method"])
    }
    if missing:
        raise MissingRequiredClientCapability(
            "This request needs client capabilities that were not declared: "
            + ", ".join(missing)
            + " (declare them in clientCapabilities to use it)",
            data={"requiredCapabilities": missing},
        )
    if ctx.era == p.MODERN:
        given = ctx.input_responses or {}
        open_requests = {k: r for k, r in requests.items() if k not in given}
        if open_requests:
            raise InputRequired(open_requests)
        answers = {k: _checked(k, r["method"], given[k]) for k, r in requests.items()}
    else:
        if ctx.send_request is None:
            raise InvalidRequest(
                "This request needs to ask the client for input, which this transport can only "
                "do on a stream: send Accept: application/json, text/event-stream"
            )
        answers = {
            k: _checked(k, r["method"], ctx.send_request(r["method"], r["params"]))
            for k, r in requests.items()
        }
    if ctx.answers is None:
        ctx.answers = {}
    ctx.answers.update(answers)
    return answers


def _checked(key: str, method: str, answer) -> dict:
    """The minimal shape of each answer (2025-11-25 schema: ElicitResult, CreateMessageResult,
    ListRootsResult); anything else is the client's protocol error, -32602."""
    problem = None
    if not isinstance(answer, dict):
        problem = "must be an object"
    elif method == ELICIT and answer.get("action") not in ("accept", "decline", "cancel"):
        problem = 'must have "action": "accept", "decline" or "cancel"'
    elif method == ELICIT and not isinstance(answer.get("content", {}), dict):
        problem = '"content" must be an object'
    elif method == SAMPLE and not isinstance(answer.get("content"), (dict, list)):
        problem = 'must have "content" (a sampling result)'
    elif method == LIST_ROOTS and not isinstance(answer.get("roots"), list):
        problem = 'must have a "roots" array'
    if problem:
        raise InvalidParams(
            f"Invalid input response {key!r} to {method}: it {problem}", data={"key": key}
        )
    return answer


# --- the dispatcher's side of MRTR -------------------------------------------------------------
def _binding(method_name: str, params: dict) -> list:
    target = params.get(MRTR_METHODS[method_name])
    arguments = params.get("arguments") or {}
    digest = hashlib.sha256(orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return [method_name, target, digest[:32]]


def begin(method_name: str, params: dict, ctx) -> None:
    """Modern era, before the handler: read `inputResponses` and verify `requestState`."""
    ctx.answers = {}
    ctx.state_verified = False
    ctx.input_responses = None
    if method_name not in MRTR_METHODS:
        return
    responses = params.get(INPUT_RESPONSES, {})
    if not isinstance(responses, dict):
        raise InvalidParams(f"params.{INPUT_RESPONSES} must be an object of input responses")
    carried: dict = {}
    if REQUEST_STATE in params:
        carried = _verify(params[REQUEST_STATE], method_name, params)
        ctx.state_verified = True
    # Answers from earlier rounds come from the signed state; this round's from the client.
    ctx.input_responses = {**carried, **responses}


def _verify(state, method_name: str, params: dict) -> dict:
    if not isinstance(state, str):
        raise InvalidParams(f"params.{REQUEST_STATE} must be the string this server returned")
    try:
        binding, answers = signing.loads(state, salt=_SALT, max_age=REQUEST_STATE_MAX_AGE)
    except signing.SignatureExpired as exc:
        raise InvalidParams(
            "requestState has expired: call again without requestState and inputResponses"
        ) from exc
    except (signing.BadSignature, ValueError, TypeError) as exc:
        raise InvalidParams(
            "requestState failed its integrity check: pass it back exactly as this server "
            "returned it"
        ) from exc
    if binding != _binding(method_name, params):
        raise InvalidParams(
            "requestState belongs to another request: retry the same method with the same "
            "name and arguments it was issued for"
        )
    return answers if isinstance(answers, dict) else {}


def input_required_result(exc: InputRequired, method_name: str, params: dict, ctx) -> dict:
    """The InputRequiredResult for an `ask` that could not be answered yet."""
    state = signing.dumps(
        [_binding(method_name, params), ctx.answers or {}], salt=_SALT, compress=True
    )
    return {"resultType": "input_required", "inputRequests": exc.requests, REQUEST_STATE: state}
