"""The glossary's MCP server: the instance the product serves (`settings.MCP_SERVER` names
`server` below) with the built-in methods, the glossary's tools, resources and prompts, its
result cache and its change feed.

`build_server()` makes a fresh one, so the test suite's conformance server
(tests/mcp/conformance_server.py) can start from the same glossary and add the suite's
fixtures without touching this instance.
"""

from django.conf import settings

from glossary.site import site_url

from ..core.server import Server
from . import prompts, resources, tools
from .cache import ContentResultCache
from .changes import GlossaryChanges

INSTRUCTIONS = """\
Słownik is a Polish glossary of technical terms (AI agents, MCP, web, security) with \
articles that use them. Content is in Polish; answer the user in their language.
- Find a term: search_term {query} (accepts Polish or English names, synonyms, abbreviations), \
then get_term {slug} for the full entry (definition, Markdown body, synonyms, related terms, \
articles, page URL). If get_term says a slug is unknown, use one of the slugs it suggests.
- Browse: list_terms {letter?, category?, cursor?}; articles: search_articles {query}, \
get_article {slug}.
- The same entries are resources glossary://terms/{slug} and glossary://articles/{slug} \
(Markdown); prompts explain_term, compare_terms and summarize_article embed them.
- Cite the page URL returned with each entry when you quote the glossary.

Słownik to polski słownik pojęć technicznych z artykułami, które z nich korzystają. \
Szukaj pojęć narzędziem search_term, pełny wpis pobierzesz przez get_term (slug), listę \
alfabetyczną przez list_terms, artykuły przez search_articles i get_article. Te same wpisy są \
zasobami glossary://terms/{slug} i glossary://articles/{slug}. Cytując słownik, podawaj \
adres strony zwrócony przy wpisie."""

# Freshness hint for cacheable modern results (2026-07-28 server/utilities/caching): the
# glossary is public and changes at editorial pace.
CACHE_TTL_MS = 300_000


def build_server() -> Server:
    server = Server(
        name=settings.MCP_SERVER_NAME,
        title=settings.MCP_SERVER_TITLE,
        version=settings.MCP_SERVER_VERSION,
        description="Polski słownik pojęć technicznych: definicje, powiązania i artykuły.",
        website_url=lambda: site_url() + "/",  # read when asked: stored in the database
        instructions=INSTRUCTIONS,
        cache_ttl_ms=CACHE_TTL_MS,
        cache_scope="public",
    )
    server.include(tools.features, resources.features, prompts.features)
    server.resource_list(resources.list_entries, cacheable=True)
    server.result_cache = ContentResultCache(settings.MCP_RESULT_CACHE_SIZE)
    server.change_feed = GlossaryChanges()
    return server


server = build_server()
