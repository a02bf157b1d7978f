"""The reference MCP server for `bench/mcp.py`: the official Python SDK (PyPI `mcp` 2.3.0) used the
way its documentation shows, serving the same two glossary tools as Słownik with the same SQL.

- `MCPServer` with `@server.tool()` functions whose return types are pydantic models (so the SDK
  derives `outputSchema` and returns `structuredContent` plus a JSON text block, as ours does);
- `streamable_http_app(stateless_http=True, json_response=True)` under uvicorn, one worker, with
  uvloop and httptools when installed (`uvicorn[standard]`, the usual production choice);
- an `AsyncConnectionPool` (psycopg 3, 4 connections) opened once in the server's lifespan:
  async tools on an async pool are the idiomatic shape for an asyncio SDK server (no thread
  hop per call); binding mode as Django's under the same environment (see `lifespan`).

"The same SQL" is enforced, not hand-copied: `bench/mcp.py` captures the statements our
selectors run (`glossary.selectors.term_detail`, `glossary.search.term_search`) through Django's
`execute_wrapper` and writes them to a JSON file given here as `--statements`:
- `get_term`: the two statements as templates whose parameters are the slug, the term id, the
  clock or constants; the capture checks the template reproduces every benchmark slug's SQL;
- `search_term`: the exact statement and parameters per benchmark query (the engine's query
  normalization, Polish stemming and typo keys are ours; the reference does not redo them, so
  it does strictly less Python work per call than ours: the comparison is conservative).
  A query that was not captured (the distinct-query workload: 40,000+ texts never repeated)
  gets what a plain SDK server would do: `ILIKE '%query%'` over the folded names and
  synonyms, served by their trigram index (`PLAIN_SEARCH`), names in order.
Only the clock (`published_at <= now`) is re-evaluated per call. This module does not import
Django: its request path is SDK + psycopg only.

    python bench/reference_server.py --port 8766 --statements statements.json
"""

import argparse
import base64
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel

# Run as a script, this directory comes first on sys.path, where bench/mcp.py would shadow the
# SDK's `mcp` package: import from the project root instead.
_here = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _here]

from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402
from psycopg import AsyncClientCursor  # noqa: E402
from psycopg_pool import AsyncConnectionPool  # noqa: E402

SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
PREPARE_THRESHOLD = int(os.environ.get("DB_PREPARE_THRESHOLD") or 5)


class Statements:
    """The captured SQL (see the module docstring), with parameters filled per call."""

    def __init__(self, data: dict) -> None:
        self.term, self.links = data["get_term"]["term"], data["get_term"]["links"]
        self.search = {(q["query"], q["limit"]): q["statements"] for q in data["search_term"]}
        # The distinct-read workload (bench/coldreads.py): get_article's two statements and
        # term_page's statement per filter shape ("<letter><category><after>" as 0/1).
        self.article = data.get("get_article")
        self.pages = data.get("list_terms") or {}

    @staticmethod
    def _fill(spec: list, now: datetime, values: dict) -> tuple:
        out = []
        for kind, value in spec:
            out.append(now if kind == "now" else values.get(kind, value))
        return tuple(out)

    def term_sql(self, slug: str, now: datetime) -> tuple[str, tuple]:
        return self.term["sql"], self._fill(self.term["params"], now, {"slug": slug})

    def links_sql(self, term_id: int, now: datetime) -> tuple[str, tuple]:
        return self.links["sql"], self._fill(self.links["params"], now, {"id": term_id})

    def article_sql(self, part: str, now: datetime, **values) -> tuple[str, tuple]:
        spec = self.article[part]
        return spec["sql"], self._fill(spec["params"], now, values)

    def page_sql(self, now: datetime, letter, category, after) -> tuple[str, tuple]:
        spec = self.pages[f"{int(letter is not None)}{int(category is not None)}{int(bool(after))}"]
        key, pk = after or (None, None)
        values = {"letter": letter, "category": category, "key": key, "id": pk}
        return spec["sql"], self._fill(spec["params"], now, values)

    def search_sql(self, query: str, limit: int, now: datetime) -> list[tuple[str, tuple]]:
        statements = self.search.get((query, limit))
        if statements is None:
            pattern = "%" + query.lower().replace("\\", "\\\\").replace("%", "\\%") + "%"
            return [(PLAIN_SEARCH, (now, pattern, limit))]
        return [(st["sql"], self._fill(st["params"], now, {})) for st in statements]


# The plain search an SDK server would write: published terms whose folded names or synonyms
# contain the text, by the trigram index those columns have (migration 0003).
PLAIN_SEARCH = (
    "SELECT id, slug, name, short_definition FROM glossary_term "
    "WHERE status = 'published' AND published_at <= %s AND search_names ILIKE %s "
    "ORDER BY name LIMIT %s"
)


def _columns(cursor, row) -> dict:
    """The row by column name (the first of duplicate names: the term's, before joined ones)."""
    out: dict = {}
    for column, value in zip(cursor.description, row, strict=True):
        out.setdefault(column.name, value)
    return out


def _score(row) -> float:
    """The rank our engine reports, roughly: its tier (and closeness, when selected) scaled."""
    tier = row[4] if len(row) > 4 and isinstance(row[4], (int, float)) else 1
    return round(float(tier) / 7, 4)


# --- the MCP server ---------------------------------------------------------------------------


# Field names follow our tools' output schemas, so both servers send the same documents.


class TermHit(BaseModel):
    name: str
    slug: str
    shortDefinition: str
    url: str
    score: float


class SearchResult(BaseModel):
    query: str
    results: list[TermHit]


class CategoryRef(BaseModel):
    slug: str
    name: str


class RelatedRef(BaseModel):
    slug: str
    name: str
    shortDefinition: str


class ArticleRef(BaseModel):
    slug: str
    title: str
    url: str


class TermResult(BaseModel):
    name: str
    slug: str
    shortDefinition: str
    body: str
    synonyms: list[str]
    categories: list[CategoryRef]
    related: list[RelatedRef]
    articles: list[ArticleRef]
    url: str
    updatedAt: str | None


class ArticleResult(BaseModel):
    title: str
    slug: str
    lead: str
    body: str
    url: str
    publishedAt: str | None
    updatedAt: str | None
    series: CategoryRef | None
    terms: list[TermHit]
    previous: ArticleRef | None
    next: ArticleRef | None


class TermCard(BaseModel):
    name: str
    slug: str
    shortDefinition: str
    url: str


class TermList(BaseModel):
    terms: list[TermCard]
    nextCursor: str | None = None


def _decode_cursor(cursor: str | None):
    """The keyset position in a cursor ours issued (its payload; the reference does not check
    the signature, strictly less work than ours), or in one the reference issued."""
    if not cursor:
        return None
    payload = cursor.split(":", 1)[0]
    _kind, position = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return position


def _encode_cursor(position) -> str:
    raw = json.dumps(["list_terms::", position]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=") + ":"


def _term_markdown(term: dict, categories, related, articles) -> str:
    """The Markdown document of a term, the sections ours has."""
    lines = [f"# {term['name']}", "", term["short_definition"], ""]
    if term["synonyms"]:
        lines += [f"**Synonimy:** {', '.join(term['synonyms'])}", ""]
    if categories:
        lines += [f"**Kategorie:** {', '.join(c.name for c in categories)}", ""]
    if term["body"].strip():
        lines += [term["body"].strip(), ""]
    if related:
        lines += ["## Pojęcia powiązane", ""]
        lines += [f"- {r.name} (`{r.slug}`): {r.shortDefinition}" for r in related]
        lines.append("")
    if articles:
        lines += ["## Artykuły", ""]
        lines += [f"- [{a.title}]({a.url})" for a in articles]
        lines.append("")
    url = f"{SITE_URL}/slownik/{term['slug']}/"
    lines.append(f"Źródło: {url} (zaktualizowano {term['updated_at'].isoformat()})")
    return "\n".join(lines)


def build_server(statements: Statements) -> MCPServer:
    @contextlib.asynccontextmanager
    async def lifespan(server) -> AsyncIterator[dict]:
        # The binding mode Django uses under the same settings (config/settings.py), so the
        # very same statements reach PostgreSQL the same way from both servers: client-side
        # binding by default, server-side binding with prepared statements when
        # DB_SERVER_SIDE_BINDING is on (psycopg's own default for async connections).
        kwargs: dict = {"autocommit": True, "cursor_factory": AsyncClientCursor}
        if os.environ.get("DB_SERVER_SIDE_BINDING", "").lower() in {"1", "true", "yes", "on"}:
            kwargs = {"autocommit": True, "prepare_threshold": PREPARE_THRESHOLD}
        pool = AsyncConnectionPool(
            os.environ["DATABASE_URL"], min_size=4, max_size=4, open=False, kwargs=kwargs
        )
        await pool.open(wait=True)
        try:
            yield {"pool": pool}
        finally:
            await pool.close()

    server = MCPServer(
        "reference-glossary", version="1.0.0", lifespan=lifespan, log_level="WARNING"
    )

    @server.tool(description="Search glossary terms by name, synonym or definition.")
    async def search_term(query: str, ctx: Context, limit: int = 10) -> SearchResult:
        rows = []
        async with ctx.request_context.lifespan_context["pool"].connection() as conn:
            for sql, params in statements.search_sql(query, limit, datetime.now(UTC)):
                rows = await (await conn.execute(sql, params)).fetchall()
        return SearchResult(
            query=query,
            results=[
                TermHit(name=row[2], slug=row[1], shortDefinition=row[3],
                        url=f"{SITE_URL}/slownik/{row[1]}/", score=_score(row))
                for row in rows
            ],
        )  # fmt: skip

    async def read_term(slug: str, ctx: Context):
        now = datetime.now(UTC)
        async with ctx.request_context.lifespan_context["pool"].connection() as conn:
            cursor = await conn.execute(*statements.term_sql(slug, now))
            row = await cursor.fetchone()
            if row is None:
                return None
            term = _columns(cursor, row)
            links = await (await conn.execute(*statements.links_sql(term["id"], now))).fetchall()
        categories, related, articles = [], [], []
        for kind, _pk, lslug, title, summary, _sort in sorted(links, key=lambda r: r[5]):
            if kind == "category":
                categories.append(CategoryRef(slug=lslug, name=title))
            elif kind == "term":
                related.append(RelatedRef(slug=lslug, name=title, shortDefinition=summary))
            elif kind == "article":
                articles.append(
                    ArticleRef(slug=lslug, title=title, url=f"{SITE_URL}/artykuly/{lslug}/")
                )
        articles.reverse()  # newest first, as ours
        return term, categories, related, articles

    @server.tool(description="Get one glossary term: categories, related terms, articles.")
    async def get_term(slug: str, ctx: Context) -> TermResult:
        found = await read_term(slug, ctx)
        if found is None:
            raise ToolError(f"Unknown term {slug!r}.")
        term, categories, related, articles = found
        return TermResult(
            name=term["name"], slug=term["slug"], shortDefinition=term["short_definition"],
            body=term["body"], synonyms=term["synonyms"], categories=categories, related=related,
            articles=articles, url=f"{SITE_URL}/slownik/{term['slug']}/",
            updatedAt=term["updated_at"].isoformat(),
        )  # fmt: skip

    @server.tool(description="Get one published article: lead, body, the terms it uses.")
    async def get_article(slug: str, ctx: Context) -> ArticleResult:
        now = datetime.now(UTC)
        async with ctx.request_context.lifespan_context["pool"].connection() as conn:
            cursor = await conn.execute(*statements.article_sql("article", now, slug=slug))
            row = await cursor.fetchone()
            if row is None:
                raise ToolError(f"Unknown article {slug!r}.")
            article = _columns(cursor, row)
            sql, params = statements.article_sql("links", now, id=article["id"])
            links = await (await conn.execute(sql, params)).fetchall()
        terms = [
            TermHit(name=title, slug=lslug, shortDefinition=summary,
                    url=f"{SITE_URL}/slownik/{lslug}/", score=1.0)
            for kind, _pk, lslug, title, summary, _sort in sorted(links, key=lambda r: r[5])
            if kind == "term"
        ]  # fmt: skip
        published = article["published_at"]
        return ArticleResult(
            title=article["title"], slug=article["slug"], lead=article["lead"],
            body=article["body"], url=f"{SITE_URL}/artykuly/{article['slug']}/",
            publishedAt=published.isoformat() if published else None,
            updatedAt=article["updated_at"].isoformat(), series=None, terms=terms,
            previous=None, next=None,
        )  # fmt: skip

    @server.tool(description="List published terms A–Z, by letter or category, paginated.")
    async def list_terms(
        ctx: Context, letter: str | None = None, category: str | None = None,
        cursor: str | None = None,
    ) -> TermList:  # fmt: skip
        now = datetime.now(UTC)
        after = _decode_cursor(cursor)
        sql, params = statements.page_sql(now, letter, category, after)
        async with ctx.request_context.lifespan_context["pool"].connection() as conn:
            cur = await conn.execute(sql, params)
            rows = [_columns(cur, r) for r in await cur.fetchall()]
        page = rows[:50]
        result = TermList(
            terms=[
                TermCard(name=r["name"], slug=r["slug"], shortDefinition=r["short_definition"],
                         url=f"{SITE_URL}/slownik/{r['slug']}/")
                for r in page
            ]
        )  # fmt: skip
        if len(rows) > 50:
            result.nextCursor = _encode_cursor([page[-1]["sort_key"], page[-1]["id"]])
        return result

    @server.resource("glossary://terms/{slug}", mime_type="text/markdown")
    async def term_resource(slug: str, ctx: Context) -> str:
        found = await read_term(slug, ctx)
        if found is None:
            raise ValueError(f"Unknown term {slug!r}.")
        return _term_markdown(*found)

    @server.prompt(description="Explain a glossary term in Polish for a given audience.")
    async def explain_term(slug: str, ctx: Context, audience: str | None = None) -> list[dict]:
        found = await read_term(slug, ctx)
        if found is None:
            raise ValueError(f"Unknown term {slug!r}.")
        resource = {"uri": f"glossary://terms/{slug}", "mimeType": "text/markdown",
                    "text": _term_markdown(*found)}  # fmt: skip
        instruction = (
            "Wyjaśnij po polsku pojęcie z załączonego wpisu słownika. "
            f"Odbiorca: {audience or 'czytelnik bez specjalistycznej wiedzy'}."
        )
        return [
            {"role": "user", "content": {"type": "resource", "resource": resource}},
            {"role": "user", "content": {"type": "text", "text": instruction}},
        ]

    return server


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--statements", required=True, help="JSON written by bench/mcp.py")
    args = parser.parse_args()
    statements = Statements(json.loads(Path(args.statements).read_text(encoding="utf-8")))
    app = build_server(statements).streamable_http_app(
        stateless_http=True, json_response=True, host=args.host
    )
    uvicorn.run(app, host=args.host, port=args.port, workers=1, log_level="warning",
                access_log=False)  # fmt: skip


if __name__ == "__main__":
    main()
