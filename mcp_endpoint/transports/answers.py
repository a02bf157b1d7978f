"""Server-to-client requests of legacy live calls, and their answers (2025-11-25
basic/transports §Sending Messages to the Server).

A live call (calls.py) asks the client through `request_client`: the request goes out on the
call's own SSE stream with an id of its own, and the client's answer comes back as a separate
POST, which may reach any worker of any host. `deliver` hands it to the waiting call directly
when that call runs in this process, else leaves it in a mailbox in the event store
(eventstore.py), where the waiting call looks for it while it waits.
"""

from __future__ import annotations

import re
import secrets
import threading
import time

from ..core.errors import ClientError
from . import eventstore

# How long a call waits for the client's answer before giving up (a person may be typing),
# and how often it looks for an answer another process stored.
ANSWER_TIMEOUT = 120.0
ANSWER_POLL = 0.1
_ISSUED = re.compile(r"srv-[A-Za-z0-9_-]{24}")


class _Waiting:
    def __init__(self):
        self.done = threading.Event()
        self.answer: dict | None = None


_waiting: dict[str, _Waiting] = {}
_waiting_lock = threading.Lock()


def _mailbox(request_id: str) -> str:
    """The private event-store channel that holds the one answer to `request_id` (never
    readable by a browser: glossary.eventstream lets streams open content channels only)."""
    return f"mcp-answer-{request_id}"


def request_client(method: str, params: dict, emit) -> dict:
    """Send `method` to the client through `emit` (the call's stream) and wait for its answer.
    Returns the result; a JSON-RPC error answer or no answer in time is a `ClientError`."""
    request_id = f"srv-{secrets.token_urlsafe(18)}"
    slot = _Waiting()
    with _waiting_lock:
        _waiting[request_id] = slot
    try:
        emit({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + ANSWER_TIMEOUT
        # The answer reaches this process directly, or another process stores it.
        while not slot.done.wait(ANSWER_POLL):
            stored = eventstore.take_answer(_mailbox(request_id))
            if stored is not None:
                slot.answer = stored
                break
            if time.monotonic() > deadline:
                raise ClientError(
                    f"The client did not answer {method} within {ANSWER_TIMEOUT:.0f} s"
                )
    finally:
        with _waiting_lock:
            _waiting.pop(request_id, None)
        eventstore.take_answer(_mailbox(request_id))  # one that raced the timeout is dropped
    answer = slot.answer or {}
    if "error" in answer:
        error = answer["error"] if isinstance(answer["error"], dict) else {}
        raise ClientError(f"The client refused {method}: {error.get('message', 'no reason given')}")
    return answer.get("result")


def deliver(message: dict) -> bool:
    """Route a client's JSON-RPC response to the call waiting for it, in this process or in
    whichever process runs it; a second answer to the same request is dropped. False for an
    id this server never issued."""
    request_id = message.get("id")
    if not isinstance(request_id, str) or not _ISSUED.fullmatch(request_id):
        return False
    with _waiting_lock:
        slot = _waiting.get(request_id)
    if slot is not None:
        slot.answer = message
        slot.done.set()
        return True
    eventstore.put_answer(_mailbox(request_id), message)
    return True
