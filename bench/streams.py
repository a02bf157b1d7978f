"""Capacity of one server process holding idle streams: memory and threads per stream,
database connections, and the time one edit takes to reach every stream.

    scripts/with-postgres .venv/bin/python bench/streams.py --streams 500

Starts a private Redis and one uvicorn process (the `make run` command, DB_POOL=1) on a
throwaway database, opens N legacy MCP GET streams (each its own session, subscribed to one
term) and N reader-page streams, then edits the term from a shell process and waits until
every stream has the notification. Prints a Markdown table row.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.processes import HOST, MCP_PATH, Deployment, Redis  # noqa: E402  # noqa: E402

TERM = "pojemnosc"
CREATE = (
    "from glossary.models import Term; "
    f"Term.objects.create(name='Pojemność', slug='{TERM}', status='published', "
    "short_definition='Ile strumieni utrzyma jeden proces.')"
)
EDIT = (
    "from glossary.models import Term; import time\n"
    f"t = Term.objects.get(slug='{TERM}')\n"
    "print(time.time())\n"
    "t.body = 'Zmiana dla wszystkich.'; t.save()"
)
LEGACY = "2025-11-25"


def proc_status(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "Threads"):
            out[key] = int(value.split()[0])
    return out


async def request(port: int, method: str, body: dict | None, headers: dict) -> tuple[dict, bytes]:
    reader, writer = await asyncio.open_connection(HOST, port)
    payload = json.dumps(body).encode() if body is not None else b""
    head = [f"{method} {MCP_PATH} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: close"]
    head += [f"{k}: {v}" for k, v in headers.items()]
    head.append(f"Content-Length: {len(payload)}")
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
    await writer.drain()
    data = await reader.read()
    writer.close()
    head_raw, _, rest = data.partition(b"\r\n\r\n")
    lines = head_raw.decode().split("\r\n")
    hdrs = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return hdrs, rest


async def new_session(port: int) -> str:
    base = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "b"}},
    }
    hdrs, _ = await request(port, "POST", init, base)
    key = hdrs["mcp-session-id"]
    session = {**base, "Mcp-Session-Id": key, "MCP-Protocol-Version": LEGACY}
    uri = f"glossary://terms/{TERM}"
    await request(port, "POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
    sub = {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": uri}}
    await request(port, "POST", sub, session)
    return key


async def open_stream(port: int, path: str, headers: dict, marker: bytes, opened, arrived):
    reader, writer = await asyncio.open_connection(HOST, port)
    head = [f"GET {path} HTTP/1.1", f"Host: {HOST}:{port}", "Accept: text/event-stream"]
    head += [f"{k}: {v}" for k, v in headers.items()]
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
    await writer.drain()
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        buffer += await reader.read(4096)
    opened.append(1)
    while marker not in buffer:
        chunk = await reader.read(65536)
        if not chunk:
            return writer
        buffer = buffer[-4096:] + chunk
    arrived.append(time.time())
    return writer


async def main(args) -> None:
    redis = Redis()
    redis.start()
    # The pool is how an ASGI deployment runs on PostgreSQL (infra notes §2.2): without it,
    # a thousand streams opening at once each dial the server for their first read.
    deployment = Deployment(redis_url=redis.url, name="benchstreams", settings={"DB_POOL": "1"})
    try:
        deployment.start()
        deployment.shell(CREATE)
        pid = deployment.processes[0].pid
        port = deployment.ports[0]
        await asyncio.sleep(1)
        base, base_db = proc_status(pid), deployment.database_connections()
        keys = [await new_session(port) for _ in range(args.streams)]
        opened: list = []
        arrived: list = []
        tasks = [
            asyncio.create_task(
                open_stream(
                    port,
                    MCP_PATH,
                    {"Mcp-Session-Id": key, "MCP-Protocol-Version": LEGACY},
                    b"notifications/resources/updated",
                    opened,
                    arrived,
                )
            )
            for key in keys
        ]
        tasks += [
            asyncio.create_task(
                open_stream(
                    port, f"/slownik/{TERM}/zdarzenia/", {}, b"event: updated", opened, arrived
                )
            )
            for _ in range(args.streams)
        ]
        while len(opened) < len(tasks):
            await asyncio.sleep(0.1)
        await asyncio.sleep(2)
        loaded, loaded_db = proc_status(pid), deployment.database_connections()
        out = await asyncio.to_thread(deployment.shell, EDIT)
        saving = float(out.strip().splitlines()[-1])
        deadline = time.monotonic() + 30
        while len(arrived) < len(tasks) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        streams = len(tasks)
        per_stream_kb = (loaded["VmRSS"] - base["VmRSS"]) / streams
        print(
            "| streams | RSS before → after (MB) | KB per stream | threads | DB connections "
            "(idle → with streams) | delivered | first / p50 / last after save (ms) |"
        )
        print("|---|---|---|---|---|---|---|")
        lat = sorted((t - saving) * 1000 for t in arrived)
        p50 = lat[len(lat) // 2] if lat else float("nan")
        print(
            f"| {streams} ({args.streams} MCP + {args.streams} page) "
            f"| {base['VmRSS'] / 1024:.0f} → {loaded['VmRSS'] / 1024:.0f} | {per_stream_kb:.0f} "
            f"| {base['Threads']} → {loaded['Threads']} | {base_db} → {loaded_db} "
            f"| {len(arrived)}/{streams} | {lat[0]:.0f} / {p50:.0f} / {lat[-1]:.0f} |"
        )
        if len(arrived) < streams:
            print(deployment.stderr(0), file=sys.stderr)
        for task in tasks:
            task.cancel()
    finally:
        deployment.stop()
        redis.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=200, help="MCP streams (and as many pages)")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    asyncio.run(main(parser.parse_args()))
