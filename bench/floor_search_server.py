"""The search floor for `bench/floor.py --tool search_term`: Słownik's search engine with nothing
around it.

A bare WSGI function in a process where Django is set up (the production settings of the
benchmark: persistent connection, prepared statements) reads the POST, decodes it with orjson,
calls `glossary.search.term_search(query, limit=10)` (and, when nothing matched,
`suggest_terms`, as the `search_term` tool does), and encodes the hits as a JSON-RPC tool result
with orjson. No Django handler, no request signals, no JSON-RPC validation, no HTTP rules, no
presenter: what the engine itself costs a search, its SQL and its Python, under the same server
and load as ours and the reference. If this is above a target, no work outside
`glossary/search/` can meet it.

    granian --interface wsgi --blocking-threads 4 bench.floor_search_server:application
    (DJANGO_SETTINGS_MODULE=config.settings DATABASE_URL=postgres://… and bench/mcp.py's
    production environment)
"""

import django
import orjson

django.setup()

from glossary.search import suggest_terms, term_search  # noqa: E402  (after setup)


def application(environ, start_response):
    body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
    message = orjson.loads(body)
    query = message["params"]["arguments"]["query"]
    hits = term_search(query=query, limit=10)
    data = {
        "query": query,
        "results": [
            {"name": h.title, "slug": h.slug, "shortDefinition": h.summary, "score": h.score}
            for h in hits
        ],
    }
    if not hits:
        data["suggestions"] = [h.slug for h in suggest_terms(text=query)]
    result = {
        "content": [{"type": "text", "text": orjson.dumps(data).decode()}],
        "structuredContent": data,
        "isError": False,
    }
    out = orjson.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})
    start_response(
        "200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(out)))]
    )
    return [out]
