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


def _stdio(database_url: str, tmp_path, stdin: bytes = b"") -> subprocess.CompletedProcess:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "SITE_URL", "DEBUG", "SECRET_KEY")
    }
    env.update(DATABASE_URL=database_url, DEBUG="1")
    return subprocess.run(
        [sys.executable, "manage.py", "mcp_stdio"],
        input=stdin,
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )


def test_missing_sqlite_database_is_refused_without_creating_it(tmp_path):
    """A mistyped SQLite path in the client's configuration: the command exits non-zero
    before answering anything, says on stderr which file is missing and what to run, writes
    nothing to stdout, and leaves no empty database file behind."""
    path = tmp_path / "literowka.sqlite3"
    proc = _stdio(f"sqlite:///{path}", tmp_path, _lines(INIT))
    assert proc.returncode != 0
    assert proc.stdout == b""
    stderr = proc.stderr.decode()
    assert f"The SQLite database {path} does not exist" in stderr
    assert "manage.py migrate" in stderr
    assert "Traceback" not in stderr
    assert not path.exists()


def test_unmigrated_database_is_refused(tmp_path):
    """An existing but empty (never migrated) database: non-zero exit, a message naming the
    missing migrations and the command that applies them, nothing on stdout."""
    import sqlite3

    path = tmp_path / "pusta.sqlite3"
    sqlite3.connect(path).close()
    proc = _stdio(f"sqlite:///{path}", tmp_path, _lines(INIT))
    assert proc.returncode != 0
    assert proc.stdout == b""
    stderr = proc.stderr.decode()
    assert "is not migrated" in stderr and "Run: python manage.py migrate" in stderr
    assert "Traceback" not in stderr


@pytest.mark.postgres
def test_unreachable_postgres_database_is_refused(tmp_path):
    """A DATABASE_URL naming a PostgreSQL database that does not exist: non-zero exit with a
    message naming the database and DATABASE_URL, no traceback."""
    from django.db import connection

    settings_dict = connection.settings_dict
    url = (
        f"postgres://{settings_dict['USER'] or ''}@/nie_ma_takiej_bazy?host={settings_dict['HOST']}"
    )
    proc = _stdio(url, tmp_path, _lines(INIT))
    assert proc.returncode != 0
    assert proc.stdout == b""
    stderr = proc.stderr.decode()
    assert "nie_ma_takiej_bazy" in stderr and "DATABASE_URL" in stderr
    assert "Traceback" not in stderr


@pytest.mark.live
def test_stdio_urls_follow_the_stored_site_address(live_site):
    """The stdio server runs with an environment of its own (here a different SITE_URL, as
    an agent's client config might have): its URLs still come from the site stored in the
    database, the same as the web server's."""
    env = {**os.environ, **live_site.stdio_env(), "SITE_URL": "http://127.0.0.1:1"}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "get_term", "arguments": {"slug": "mcp"}}}  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "manage.py", "mcp_stdio"],
        input=_lines(INIT, call),
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    reply = orjson.loads(proc.stdout.splitlines()[1])
    data = reply["result"]["structuredContent"]
    assert data["url"] == f"{live_site.url}/slownik/mcp/"
    assert all(a["url"].startswith(live_site.url + "/") for a in data["articles"])
