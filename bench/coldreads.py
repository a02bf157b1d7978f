"""The distinct-key read workload of `bench/mcp.py`: every key once, no repeats.

A workload that rotates 50 slugs measures the result cache. Here every
request of a scenario asks for something the server was not asked before in that run:
- `get_term`, `resources/read` of a term, `prompts/get explain_term`: every published term slug
  once (in a fixed shuffled order);
- `get_article`: every published article slug once (the synthetic glossary has no articles,
  so `add_articles` writes some, each using a few terms);
- `list_terms`, first page: every filter combination (letter, category, letter and category)
  once; later page: a cursor positioned after each published term (any keyset position is a
  page some client reaches), so every request is a different page;
- REST: `GET /terms/<id>` and `/terms?slug=` for every published term, `/terms?per_page=10&page=N`
  for every page; reader pages: every term page and every article page (the term page cache
  holds 1,000 pages, fewer than the slugs, so a rotation through all of them never hits it).

Ours runs these against two instances: the result cache off (`MCP_RESULT_CACHE_SIZE=0`) and on
with fewer entries than any scenario has keys (`CACHE_ON_SIZE`): a least-recently-used cache
walked in a cycle longer than itself never hits, so "cache on" is what a miss costs when the
cache is on (key, content state, storing the result). The reference
(`bench/reference_server.py`) gets the same requests and runs the SQL captured here from our
selectors (`capture`).
"""

from __future__ import annotations

import json
import random

from bench.capture import _template, capture_statements, detail_template
from bench.protocol import MODERN

CACHE_ON_SIZE = 256
PROMPT = "explain_term"


def add_articles(count: int, seed: int) -> None:
    """`count` published articles (lead, a short Markdown body, 3–6 terms each), written in
    bulk; deterministic for a given seed and glossary."""
    import datetime as dt

    from django.utils import timezone

    from glossary.models import Article, Status, Term

    rng = random.Random(f"{seed}:articles")
    terms = list(Term.objects.published().order_by("id").values_list("id", "name"))
    now = timezone.now() - dt.timedelta(days=1)
    articles = []
    for i in range(count):
        used = rng.sample(terms, 3)
        names = ", ".join(name for _id, name in used)
        article = Article(
            title=f"Artykuł {i}: {used[0][1]}",
            slug=f"artykul-{i}",
            lead=f"O pojęciach {names}.",
            body="\n\n".join(
                f"Akapit {n} o {name}: jak działa i do czego służy w praktyce." * 3
                for n, (_id, name) in enumerate(used)
            ),
            status=Status.PUBLISHED,
            published_at=now - dt.timedelta(minutes=i),
        )
        article.refresh_derived()
        article._used = [pk for pk, _name in used] + [
            pk for pk, _n in rng.sample(terms, rng.randint(0, 3))
        ]
        articles.append(article)
    created = Article.objects.bulk_create(articles, batch_size=500)
    through = Article.terms.through
    through.objects.bulk_create(
        (through(article_id=a.pk, term_id=t) for a, b in zip(created, articles, strict=True)
         for t in dict.fromkeys(b._used)),
        batch_size=5000,
    )  # fmt: skip


# --- the SQL the reference runs ---------------------------------------------------------------


def capture(path) -> list[str]:
    """Add to the statements file (bench/mcp.py wrote get_term and search_term) the templates of
    `article_detail` and of `term_page` per filter shape; returns problems found."""
    from django.utils import timezone

    from glossary.models import Article
    from glossary.selectors import _article_by_slug, _article_links, term_page

    def two_statements(slug, pk):
        # The reference keeps the two-statement read (the row, then a UNION of its links)
        # that article_detail ran before it became one statement (the synthetic articles
        # have no series).
        now = timezone.now()
        list(_article_by_slug(slug=slug, now=now))
        list(_article_links(pk=pk, now=now))

    data = json.loads(path.read_text(encoding="utf-8"))
    items = list(Article.objects.published().order_by("id").values_list("slug", "id")[:20])
    data["get_article"], problems = detail_template("get_article", "article", items, two_statements)
    shapes = {}
    marks = {"letter": "Ź", "category": "kategoria-bench-mark", "key": "~bench~", "id": -31_415}
    for letter in (False, True):
        for category in (False, True):
            for after in (False, True):
                statements = capture_statements(
                    lambda lt=letter, c=category, a=after: term_page(
                        letter=marks["letter"] if lt else None,
                        category=marks["category"] if c else None,
                        after=(marks["key"], marks["id"]) if a else None,
                        limit=50,
                    )
                )
                ((sql, params),) = statements
                roles = {k: v for k, v in marks.items()
                         if (k == "letter" and letter) or (k == "category" and category)
                         or (k in ("key", "id") and after)}  # fmt: skip
                shapes[f"{int(letter)}{int(category)}{int(after)}"] = {
                    "sql": sql,
                    "params": _template(params, **roles),
                }
    data["list_terms"] = shapes
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return problems


# --- requests ---------------------------------------------------------------------------------


def rpc(method: str, params: dict, form: str, rid: int, name: str | None = None):
    """Headers and body of one JSON-RPC request in the legacy or the 2026-07-28 form."""
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    params = dict(params)
    if form == "modern":
        headers["MCP-Protocol-Version"] = MODERN
        headers["Mcp-Method"] = method
        if name is not None:
            headers["Mcp-Name"] = name
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
        }
    body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
    return headers, json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def _tool(name: str, arguments: dict):
    return "tools/call", {"name": name, "arguments": arguments}, name


def workloads(seed: int) -> dict[str, list[tuple[str, dict, str]]]:
    """Scenario name → its distinct calls (method, params, Mcp-Name), every key once."""
    from glossary.models import Article, Category, Term
    from glossary.polish import INDEX_LETTERS, OTHER_LETTER
    from mcp_endpoint.core.pagination import make_cursor

    rng = random.Random(f"{seed}:distinct-reads")
    terms = list(Term.objects.published().order_by("id").values_list("slug", "sort_key", "id"))
    rng.shuffle(terms)
    articles = list(Article.objects.published().order_by("id").values_list("slug", flat=True))
    rng.shuffle(articles)
    categories = list(Category.objects.order_by("slug").values_list("slug", flat=True))
    letters = [*INDEX_LETTERS, OTHER_LETTER]
    filters = [{"letter": lt} for lt in letters] + [{"category": c} for c in categories]
    filters += [{"letter": lt, "category": c} for lt in letters for c in categories]
    rng.shuffle(filters)
    cursor = "list_terms::"
    return {
        "get_term": [_tool("get_term", {"slug": s}) for s, _k, _i in terms],
        "get_article": [_tool("get_article", {"slug": s}) for s in articles],
        "resources/read term": [
            ("resources/read", {"uri": f"glossary://terms/{s}"}, f"glossary://terms/{s}")
            for s, _k, _i in terms
        ],
        "list_terms, first page": [_tool("list_terms", f) for f in filters],
        "list_terms, later page": [
            _tool("list_terms", {"cursor": make_cursor(cursor, [k, i])}) for _s, k, i in terms
        ],
        "prompts/get explain_term": [
            ("prompts/get", {"name": PROMPT, "arguments": {"slug": s}}, PROMPT)
            for s, _k, _i in terms
        ],
    }


def specs(calls, path: str, form: str) -> list[dict]:
    out = []
    for rid, (method, params, name) in enumerate(calls, start=1):
        headers, body = rpc(method, params, form, rid, name)
        out.append({"method": "POST", "path": path, "headers": headers, "body": body})
    return out


def check(status: int, body: bytes, method: str) -> str | None:
    """None if the answer is a successful result of `method` (a tool result without isError)."""
    if status != 200:
        return f"HTTP {status}: {body[:200]!r}"
    message = json.loads(body)
    result = message.get("result")
    if not isinstance(result, dict):
        return f"not a result: {body[:300]!r}"
    if method == "tools/call" and (result.get("isError") or "structuredContent" not in result):
        return f"tool error: {body[:300]!r}"
    if method == "resources/read" and not result.get("contents", [{}])[0].get("text"):
        return f"no contents: {body[:300]!r}"
    if method == "prompts/get" and len(result.get("messages") or []) < 2:
        return f"no messages: {body[:300]!r}"
    return None


def rest_paths(api: str) -> dict[str, list[str]]:
    from glossary.models import Term

    rng = random.Random("rest-distinct")
    rows = list(Term.objects.published().order_by("id").values_list("id", "slug"))
    rng.shuffle(rows)
    pages = list(range(1, (len(rows) + 9) // 10 + 1))
    rng.shuffle(pages)
    return {
        "REST GET /terms/<id>": [f"{api}/terms/{pk}" for pk, _s in rows],
        "REST GET /terms?slug=": [f"{api}/terms?slug={s}" for _pk, s in rows],
        "REST GET /terms?per_page=10&page=N": [f"{api}/terms?per_page=10&page={n}" for n in pages],
    }


def page_paths() -> dict[str, list[str]]:
    from glossary.models import Article, Term

    rng = random.Random("pages-distinct")
    terms = list(Term.objects.published().values_list("slug", flat=True).order_by("id"))
    articles = list(Article.objects.published().values_list("slug", flat=True).order_by("id"))
    rng.shuffle(terms)
    rng.shuffle(articles)
    return {
        "reader term page, every slug once (uncached render)": [f"/slownik/{s}/" for s in terms],
        "reader article page, every slug once (uncached render)": [
            f"/artykuly/{s}/" for s in articles
        ],
    }
