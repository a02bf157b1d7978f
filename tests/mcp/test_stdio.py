"""The stdio transport (every revision's basic/transports §stdio): newline-delimited JSON-RPC
through the same dispatcher, protocol bytes only on stdout, bad lines answered and survived,
clean exit on end of input. Tested with injected streams and as a real subprocess."""

import dataclasses
import io
import os
import subprocess
import sys

import orjson
import pytest
from django.core.management import call_command

from mcp_endpoint.core import protocol as p
from mcp_endpoint.core.server import get_server
from mcp_endpoint.transports.stdio import serve
from tests.mcp.helpers import meta
from tests.processes import ROOT

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
DISCOVER = {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": meta()}}


def _lines(*messages) -> bytes:
    return b"".join((m if isinstance(m, bytes) else orjson.dumps(m)) + b"\n" for m in messages)


def run(*messages) -> list[dict]:
    out = io.BytesIO()
    serve(io.BytesIO(_lines(*messages)), out)
    raw = out.getvalue()
    assert raw == b"" or raw.endswith(b"\n")
    return [orjson.loads(line) for line in raw.splitlines()]


def test_legacy_session(content):
    """2025-11-25 basic/lifecycle over stdio: initialize, initialized, then requests."""
    replies = run(
        INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "get_term", "arguments": {"slug": "mcp"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    )  # fmt: skip
    assert [r["id"] for r in replies] == [1, 2, 3]  # the notification got no answer
    assert replies[0]["result"]["protocolVersion"] == "2025-11-25"
    assert replies[1]["result"]["structuredContent"]["slug"] == "mcp"
    assert replies[2]["result"] == {}


def test_discover_answers_before_initialize_and_initialize_still_works(db):
    """2026-07-28 basic/transports/stdio §Backward Compatibility: a dual-era server answers the
    server/discover probe before any initialize, and still accepts initialize afterwards."""
    discover, init = run(DISCOVER, INIT)
    assert discover["result"]["supportedVersions"][0] == "2026-07-28"
    assert discover["result"]["resultType"] == "complete"
    assert init["result"]["protocolVersion"] == "2025-11-25"


def test_modern_requests_are_routed_by_meta(content):
    """2026-07-28 stdio §Request Metadata: no headers; `_meta` selects the modern era."""
    tools, missing_caps, unsupported, ping = run(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list",
         "params": {"_meta": {p.META_PROTOCOL_VERSION: "2026-07-28"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list",
         "params": {"_meta": meta("1900-01-01")}},
        {"jsonrpc": "2.0", "id": 4, "method": "ping", "params": {"_meta": meta()}},
    )  # fmt: skip
    assert tools["result"]["resultType"] == "complete" and tools["result"]["ttlMs"] >= 0
    assert missing_caps["error"]["code"] == -32602
    assert unsupported["error"]["code"] == -32022
    assert ping["error"]["code"] == -32601


def test_bad_line_is_answered_and_the_server_carries_on(db):
    """A line that is not JSON gets -32700 with id null; the next line is still served."""
    parse_error, pong = run(b"{not json", {"jsonrpc": "2.0", "id": 7, "method": "ping"})
    assert parse_error == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error: the body is not valid JSON"},
    }
    assert pong == {"jsonrpc": "2.0", "id": 7, "result": {}}


def test_blank_lines_are_ignored_and_eof_ends(db):
    """Blank lines produce nothing; end of input returns normally."""
    out = io.BytesIO()
    serve(io.BytesIO(b"\n   \n\r\n"), out)
    assert out.getvalue() == b""


def test_batches_follow_the_negotiated_version(db):
    """2025-03-26 basic/index: batches are accepted after negotiating 2025-03-26 only."""
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    init_0326 = {**INIT, "params": {**INIT["params"], "protocolVersion": "2025-03-26"}}
    _, batch = run(init_0326, [ping])
    assert batch == [{"jsonrpc": "2.0", "id": 2, "result": {}}]
    _, rejected = run(INIT, [ping])
    assert rejected["error"]["code"] == -32600


def test_set_level_is_remembered_for_the_process(db):
    """logging/setLevel is stored for the stdio session (legacy state lives per process)."""
    replies = run(INIT, {"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel",
                         "params": {"level": "warning"}})  # fmt: skip
    assert replies[1]["result"] == {}


def test_management_command_keeps_stdout_for_protocol(db, monkeypatch, capsys):
    """`manage.py mcp_stdio` writes only protocol lines to stdout, even if code prints."""

    class Stream(io.BytesIO):
        pass

    stdin = io.TextIOWrapper(Stream(_lines({"jsonrpc": "2.0", "id": 1, "method": "ping"})))
    stdout_bytes = Stream()
    stdout = io.TextIOWrapper(stdout_bytes)
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    methods = get_server().methods
    noisy = dataclasses.replace(methods["ping"], handler=lambda params, ctx: print("x") or {})
    monkeypatch.setitem(methods, "ping", noisy)
    call_command("mcp_stdio")
    stdout.flush()
    assert stdout_bytes.getvalue() == b'{"jsonrpc":"2.0","id":1,"result":{}}\n'


@pytest.mark.live
def test_real_subprocess(live_site):
    """The real command as a client launches it: a legacy session and a modern discover
    against a database with content; stdout carries only JSON lines; EOF exits with 0."""
    env = {**os.environ, **live_site.stdio_env()}
    messages = _lines(
        DISCOVER,
        INIT,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        b"oops",
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "get_term", "arguments": {"slug": "mcp"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "resources/read",
         "params": {"uri": "glossary://terms/mcp", "_meta": meta()}},
    )  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "manage.py", "mcp_stdio"],
        input=messages,
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    replies = [orjson.loads(line) for line in proc.stdout.splitlines()]
    assert [r["id"] for r in replies] == [0, 1, None, 2, 3]
    assert replies[2]["error"]["code"] == -32700
    assert replies[3]["result"]["structuredContent"]["slug"] == "mcp"
    assert replies[3]["result"]["structuredContent"]["url"].startswith(live_site.url)
    assert replies[4]["result"]["contents"][0]["text"].startswith("# ")
