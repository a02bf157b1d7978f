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
Słownik to polski słownik pojęć technicznych (agenci AI, MCP, sieć, bezpieczeństwo) \
z artykułami, które z nich korzystają. Treść jest po polsku; użytkownikowi odpowiadaj w jego \
języku.
- Szukaj pojęć: search_term {query} (nazwy polskie i angielskie, synonimy, skróty, \
literówki), potem get_term {slug} po pełny wpis (definicja, treść w Markdown, synonimy, \
pojęcia powiązane, artykuły, adresy stron). Gdy get_term nie zna slugu, podaje najbliższe.
- Przeglądanie: list_terms {letter?, category?, cursor?}: kategoria po nazwie albo slugu; \
tekst odpowiedzi podaje wywołanie dające następną stronę. Artykuły: search_articles {query}, \
get_article {slug}.
- Te same wpisy są zasobami glossary://terms/{slug} i glossary://articles/{slug} \
(Markdown); prompty explain_term, compare_terms i summarize_article je osadzają.
- Cytując słownik, podawaj adres strony zwrócony przy wpisie (wszystkie adresy są pełne)."""

_TYPES = {
    "string": "tekst",
    "integer": "liczba całkowita",
    "number": "liczba",
    "object": "obiekt",
    "array": "lista",
    "boolean": "true albo false",
    "null": "null",
}


def _type_name(value) -> str:
    names = value if isinstance(value, list) else [value]
    return " albo ".join(_TYPES.get(name, name) for name in names)


def _problem(error) -> str:
    """One jsonschema violation in Polish, naming the argument."""
    where = ".".join(str(part) for part in error.absolute_path)
    subject = f"Argument „{where}”" if where else "Argumenty"
    kind, expected, instance = error.validator, error.validator_value, error.instance
    if kind == "required":
        missing = [name for name in expected if name not in instance]
        return "Brak wymaganego argumentu " + ", ".join(f"„{name}”" for name in missing)
    if kind == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        extra = [name for name in instance if name not in known]
        return "Nieznany argument " + ", ".join(f"„{name}”" for name in extra)
    if kind == "type":
        return f"{subject} musi być typu: {_type_name(expected)}"
    if kind == "enum":
        return f"{subject} musi być jedną z wartości: {', '.join(map(str, expected))}"
    if kind == "minLength":
        return f"{subject} musi mieć co najmniej {expected} znak(ów)"
    if kind == "maxLength":
        return f"{subject} może mieć najwyżej {expected} znaków"
    if kind == "minimum":
        return f"{subject} musi wynosić co najmniej {expected}"
    if kind == "maximum":
        return f"{subject} może wynosić najwyżej {expected}"
    return f"{subject}: niepoprawna wartość"


def invalid_arguments(tool, error) -> str:
    """A tool's argument error as the model reads it: what is wrong, then every argument the
    tool takes (required or not, type, what it means), never a schema dump."""
    schema = tool.input_schema
    required = set(schema.get("required", []))
    lines = [f"Niepoprawne argumenty {tool.name}: {_problem(error)}.", "", "Argumenty:"]
    for name, spec in schema.get("properties", {}).items():
        need = "wymagany" if name in required else "opcjonalny"
        about = f": {spec['description']}" if spec.get("description") else ""
        lines.append(f"- {name} ({_type_name(spec.get('type', 'string'))}, {need}){about}")
    return "\n".join(lines)


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
        invalid_arguments=invalid_arguments,
    )
    server.include(tools.features, resources.features, prompts.features)
    server.resource_list(resources.list_entries, cacheable=True)
    server.result_cache = ContentResultCache(settings.MCP_RESULT_CACHE_SIZE)
    server.change_feed = GlossaryChanges()
    return server


server = build_server()
