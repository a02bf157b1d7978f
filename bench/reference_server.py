"""The reference MCP server for `bench/mcp.py`: the official Python SDK (PyPI `mcp` 2.3.0) used the
way its documentation shows, serving the same two glossary tools as Słownik with the same SQL.

- `MCPServer` with `@server.tool()` functions whose return types are pydantic models (so the SDK
  derives `outputSchema` and returns `structuredContent` plus a JSON text block, as ours does);
- `streamable_http_app(stateless_http=True, json_response=True)` under uvicorn, one worker, with
  uvloop and httptools when installed (`uvicorn[standard]`, the usual production choice);
- an `AsyncConnectionPool` (psycopg 3) opened once in the server's lifespan: async tools on an
  async pool are the idiomatic shape for an asyncio SDK server (no thread hop per call).

The SQL strings below are the statements Django's ORM emits for `glossary.selectors.term_detail`
and `glossary.search.term_search`, copied verbatim; `bench/mcp.py` re-captures our statements for
every benchmark query and slug and refuses to compare if they differ (see `build_*` below).
This module does not import Django: its request path is pure SDK + psycopg.

    DATABASE_URL=postgres://... python bench/reference_server.py --port 8766
"""

import argparse
import contextlib
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
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcp.server.mcpserver import Context, MCPServer  # noqa: E402
from mcp.server.mcpserver.exceptions import ToolError  # noqa: E402
from psycopg_pool import AsyncConnectionPool  # noqa: E402

from glossary.polish import fold  # noqa: E402 (pure Python: the same normalization as ours)

SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
MAX_QUERY_LENGTH = 200
PUBLISHED = "published"

# --- the SQL (verbatim from the ORM; placeholders in the ORM's order) ---------------------------

TERM_SQL = (
    'SELECT "glossary_term"."id", "glossary_term"."status", "glossary_term"."published_at", '
    '"glossary_term"."created_at", "glossary_term"."updated_at", "glossary_term"."last_editor_id", '
    '"glossary_term"."name", "glossary_term"."slug", "glossary_term"."short_definition", '
    '"glossary_term"."body", "glossary_term"."body_html", "glossary_term"."synonyms", '
    '"glossary_term"."sort_key", "glossary_term"."letter", "glossary_term"."name_folded", '
    '"glossary_term"."search_text", "auth_user"."id", "auth_user"."password", '
    '"auth_user"."last_login", "auth_user"."is_superuser", "auth_user"."username", '
    '"auth_user"."first_name", "auth_user"."last_name", "auth_user"."email", '
    '"auth_user"."is_staff", "auth_user"."is_active", "auth_user"."date_joined" '
    'FROM "glossary_term" LEFT OUTER JOIN "auth_user" '
    'ON ("glossary_term"."last_editor_id" = "auth_user"."id") '
    'WHERE ("glossary_term"."published_at" <= %s AND "glossary_term"."status" = %s '
    'AND "glossary_term"."slug" = %s) '
    'ORDER BY "glossary_term"."sort_key" ASC, "glossary_term"."id" ASC LIMIT 1'
)

LINKS_SQL = (
    '(SELECT %s AS "_kind", "glossary_category"."id" AS "id", '
    '"glossary_category"."slug" AS "slug", '
    '"glossary_category"."name" AS "_title", "glossary_category"."description" AS "_summary", '
    '("glossary_category"."name")::varchar AS "_sort" FROM "glossary_category" '
    'INNER JOIN "glossary_term_categories" '
    'ON ("glossary_category"."id" = "glossary_term_categories"."category_id") '
    'WHERE "glossary_term_categories"."term_id" = %s) '
    'UNION ALL (SELECT %s AS "_kind", "glossary_term"."id" AS "id", '
    '"glossary_term"."slug" AS "slug", '
    '"glossary_term"."name" AS "_title", "glossary_term"."short_definition" AS "_summary", '
    '("glossary_term"."sort_key")::varchar AS "_sort" FROM "glossary_term" '
    'INNER JOIN "glossary_term_related" '
    'ON ("glossary_term"."id" = "glossary_term_related"."from_term_id") '
    'WHERE ("glossary_term"."published_at" <= %s AND "glossary_term"."status" = %s '
    'AND "glossary_term_related"."to_term_id" = %s)) '
    'UNION ALL (SELECT %s AS "_kind", "glossary_article"."id" AS "id", '
    '"glossary_article"."slug" AS "slug", "glossary_article"."title" AS "_title", '
    '"glossary_article"."lead" AS "_summary", '
    '("glossary_article"."published_at")::varchar AS "_sort" '
    'FROM "glossary_article" INNER JOIN "glossary_article_terms" '
    'ON ("glossary_article"."id" = "glossary_article_terms"."article_id") '
    'WHERE ("glossary_article"."published_at" <= %s AND "glossary_article"."status" = %s '
    'AND "glossary_article_terms"."term_id" = %s))'
)

SEARCH_SQL_HEAD = (
    'SELECT "glossary_term"."id" AS "id", "glossary_term"."slug" AS "slug", '
    '"glossary_term"."name" AS "name", "glossary_term"."short_definition" AS "short_definition", '
    'CASE WHEN "glossary_term"."name_folded" = %s THEN %s '
    'WHEN "glossary_term"."search_text"::text LIKE %s THEN %s '
    'WHEN "glossary_term"."name_folded"::text LIKE %s THEN %s '
    'WHEN "glossary_term"."name_folded"::text LIKE %s THEN %s ELSE %s END AS "rank" '
    'FROM "glossary_term" '
    'WHERE ("glossary_term"."published_at" <= %s AND "glossary_term"."status" = %s'
)
SEARCH_SQL_WORD = ' AND "glossary_term"."search_text"::text LIKE %s'
SEARCH_SQL_TAIL = ') ORDER BY 5 DESC, "glossary_term"."sort_key" ASC, 1 ASC LIMIT %d'


def _like(text: str) -> str:
    # Django escapes LIKE wildcards in `contains`/`startswith` values the same way.
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def normalize_query(query: str) -> str:
    return fold(query or "")[:MAX_QUERY_LENGTH]


def build_search(query: str, limit: int, now: datetime) -> tuple[str, tuple] | None:
    """The statement and parameters `term_search(query=…, limit=…)` runs (None: no query)."""
    q = normalize_query(query)
    if not q:
        return None
    words = q.split()
    lq = _like(q)
    sql = SEARCH_SQL_HEAD + SEARCH_SQL_WORD * len(words) + SEARCH_SQL_TAIL % limit
    params = (q, 100, f"% {lq} %", 80, f"{lq}%", 60, f"%{lq}%", 40, 20, now, PUBLISHED)
    return sql, params + tuple(f"%{_like(w)}%" for w in words)


def build_term(slug: str, now: datetime) -> tuple[str, tuple]:
    return TERM_SQL, (now, PUBLISHED, slug)


def build_links(term_id: int, now: datetime) -> tuple[str, tuple]:
    return LINKS_SQL, ("category", term_id, "term", now, PUBLISHED, term_id, "article", now,
                       PUBLISHED, term_id)  # fmt: skip


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


def build_server():
    @contextlib.asynccontextmanager
    async def lifespan(server) -> AsyncIterator[dict]:
        pool = AsyncConnectionPool(
            os.environ["DATABASE_URL"], min_size=4, max_size=4, open=False,
            kwargs={"autocommit": True},
        )  # fmt: skip
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
        built = build_search(query, max(1, min(limit, 50)), datetime.now(UTC))
        rows = []
        if built is not None:
            async with ctx.request_context.lifespan_context["pool"].connection() as conn:
                rows = await (await conn.execute(*built)).fetchall()
        return SearchResult(
            query=query,
            results=[
                TermHit(name=name, slug=slug, shortDefinition=short,
                        url=f"{SITE_URL}/slownik/{slug}/", score=rank / 100)
                for _pk, slug, name, short, rank in rows
            ],
        )  # fmt: skip

    @server.tool(description="Get one glossary term: categories, related terms, articles.")
    async def get_term(slug: str, ctx: Context) -> TermResult:
        now = datetime.now(UTC)
        async with ctx.request_context.lifespan_context["pool"].connection() as conn:
            row = await (await conn.execute(*build_term(slug, now))).fetchone()
            if row is None:
                raise ToolError(f"Unknown term {slug!r}.")
            links = await (await conn.execute(*build_links(row[0], now))).fetchall()
        categories, related, articles = [], [], []
        for kind, _pk, lslug, title, summary, _sort in sorted(links, key=lambda r: r[5]):
            if kind == "category":
                categories.append(CategoryRef(slug=lslug, name=title))
            elif kind == "term":
                related.append(RelatedRef(slug=lslug, name=title, shortDefinition=summary))
            else:
                articles.append(
                    ArticleRef(slug=lslug, title=title, url=f"{SITE_URL}/artykuly/{lslug}/")
                )
        articles.reverse()  # newest first, as ours
        return TermResult(
            name=row[6], slug=row[7], shortDefinition=row[8], body=row[9], synonyms=row[11],
            categories=categories, related=related, articles=articles,
            url=f"{SITE_URL}/slownik/{row[7]}/", updatedAt=row[4].isoformat(),
        )  # fmt: skip

    return server


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8766)
    args = parser.parse_args()
    app = build_server().streamable_http_app(
        stateless_http=True, json_response=True, host=args.host
    )
    uvicorn.run(app, host=args.host, port=args.port, workers=1, log_level="warning",
                access_log=False)  # fmt: skip


if __name__ == "__main__":
    main()
