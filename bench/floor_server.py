"""The floor for `bench/floor.py`: the least a Python WSGI server can do for a cold `get_term`.

No Django, no SDK, no validation, no presenter: read the POST, decode it with orjson, run the
statement our `glossary.selectors.term_detail(html=False)` runs (captured by `bench/floor.py`
through Django's `execute_wrapper` and named here by `FLOOR_STATEMENTS`; prepared on first
use on a per-thread psycopg connection), and answer the row as a JSON-RPC tool result (the
row's columns as `structuredContent`, and as JSON text in the text block). Whatever Słownik or any
other Python MCP server does for a cold `get_term` on this machine costs at least this much:
the server's request cycle, one round trip with its driver and one JSON encoding.

    granian --interface wsgi --blocking-threads 4 bench.floor_server:application
    (FLOOR_STATEMENTS=statements.json DATABASE_URL=postgres://…)
"""

import json
import os
import threading
from datetime import UTC, datetime

import orjson
import psycopg

with open(os.environ["FLOOR_STATEMENTS"], encoding="utf-8") as _file:
    _STATEMENT = json.load(_file)
SQL = _STATEMENT["sql"]
TEMPLATE = _STATEMENT["params"]  # [role, value]: "slug", "now" or "const"
_local = threading.local()


def _cursor():
    cursor = getattr(_local, "cursor", None)
    if cursor is None:
        # prepare_threshold=0: prepared on its first execution, as ours and the reference's
        # statements are after a few (DB_PREPARE_THRESHOLD, the same binding mode).
        connection = psycopg.connect(os.environ["DATABASE_URL"], autocommit=True)
        connection.prepare_threshold = 0
        cursor = _local.cursor = connection.cursor()
    return cursor


def _params(slug: str) -> list:
    now = datetime.now(UTC)
    return [slug if role == "slug" else now if role == "now" else value for role, value in TEMPLATE]


def application(environ, start_response):
    body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    message = orjson.loads(body)
    cursor = _cursor()
    cursor.execute(SQL, _params(message["params"]["arguments"]["slug"]))
    row = cursor.fetchone()
    names = [column.name for column in cursor.description]
    data = dict(zip(names, row, strict=True)) if row else {}
    result = {
        "content": [{"type": "text", "text": orjson.dumps(data, default=str).decode()}],
        "structuredContent": data,
        "isError": row is None,
    }
    out = orjson.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}, default=str)
    start_response(
        "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(out)))]
    )
    return [out]
