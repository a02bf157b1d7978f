"""The glossary's tools, each declared once with its title, description and JSON Schemas.

Every tool is a thin mapping onto a selector or the search engine that the reader pages use,
so an agent sees exactly what a reader sees (published entries only). Failures a model can
fix itself (an unknown slug, a bad argument) are `isError` results that say what to do next
(2025-11-25 server/tools §Error Handling, SEP-1303); `tools/call` validates arguments
against `input_schema` before a handler runs. Every tool is read-only and its result depends
only on its arguments and the published content, so each is declared `cacheable`.

Everything a model reads here is Polish, like the content and the prompts (README, "What
agents see"): titles, descriptions, results and errors. Filters take what the model was shown
(`Agenci AI` as well as `agenci-ai`, any case, with or without Polish letters), an unknown
value is an error naming the valid ones, and a paged result says in its text exactly which
call gives the next page.
"""

import orjson
from django.conf import settings

from glossary import search, selectors
from glossary.markdown import markdown_text
from glossary.polish import INDEX_LETTERS, OTHER_LETTER, fold, polish_slugify
from glossary.site import site_url

from ..core.errors import InvalidParams
from ..core.pagination import make_cursor, read_cursor
from ..core.registry import Features, ToolResult
from .presenters import (
    article_data,
    article_markdown,
    term_data,
    term_markdown,
    urls_on,
)
from .resources import normalize_slug

features = Features()
SLUG = {
    "type": "string",
    "minLength": 1,
    "maxLength": 250,
    "description": "Slug wpisu (np. mcp); wielkość liter i polskie znaki nie mają znaczenia",
}
QUERY = {
    "type": "string",
    "minLength": 1,
    "maxLength": search.MAX_QUERY_LENGTH,
    "description": "Tekst do wyszukania (polski lub angielski, także skróty i synonimy)",
}
LIMIT = {
    "type": "integer",
    "minimum": 1,
    "maximum": 50,
    "default": 10,
    "description": "Najwięcej wyników (1–50)",
}
NULLABLE_STR = {"type": ["string", "null"]}
STR = {"type": "string"}
ARTICLE_REF = {
    "type": ["object", "null"],
    "properties": {"slug": STR, "title": STR, "url": STR},
    "required": ["slug", "title", "url"],
}


def _object(properties: dict, required=None) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
    }


def _array(items: dict) -> dict:
    return {"type": "array", "items": items}


WEAK = {
    "type": "boolean",
    "description": "Zgadywanie, nie pewne dopasowanie: pasuje tylko część słów zapytania albo to "
    "najbliższy kandydat, gdy nic nie pasuje",
}
TERM_HIT = _object(
    {
        "name": STR,
        "slug": STR,
        "shortDefinition": STR,
        "url": STR,
        "score": {"type": "number"},
        "weak": WEAK,
    }
)
# How the engine read a search (glossary.search.Answer): whether the whole answer is a guess,
# and the query with its mistyped words corrected, when it corrected any.
READING = {
    "weak": {
        "type": "boolean",
        "description": "Brak pewnych dopasowań: wyniki to najbliżsi kandydaci (zgadywanie)",
    },
    "didYouMean": {
        "type": "string",
        "description": "Zapytanie z poprawionymi literówkami (tylko gdy coś poprawiono)",
    },
    "corrections": {
        "type": "object",
        "additionalProperties": STR,
        "description": "Wpisane słowo → jak je odczytano (tylko gdy coś poprawiono)",
    },
}
# The glossary terms a text mentions (auto-links; glossary/autolink.py), by name and address.
MENTIONS = _array(_object({"slug": STR, "name": STR, "url": STR}))
# A get_term/get_article answer's budget (presenters.BODY_BUDGET, MENTIONS_SHOWN): where the
# whole entry is, whether the body was cut (and its full length), how many terms it mentions.
BUDGET = {
    "resource": {"type": "string", "description": "Zasób z pełną treścią (resources/read)"},
    "bodyTruncated": {"type": "boolean"},
    "bodyLength": {"type": "integer", "description": "Pełna długość treści, gdy skrócona"},
    "mentionsTotal": {"type": "integer"},
}
OPTIONAL = {"bodyLength"}
# What a term carries only when an editor gave it (presenters.term_data).
ENGLISH = {
    "englishName": {"type": "string", "description": "Nazwa angielska, gdy podana"},
    "englishDefinition": {"type": "string", "description": "Krótka definicja po angielsku"},
}


def _entry(properties: dict, optional: set) -> dict:
    return _object(properties, [name for name in properties if name not in optional])


TERM_OUTPUT = _entry(
    {
        "name": STR,
        "slug": STR,
        "shortDefinition": STR,
        **ENGLISH,
        "body": {"type": "string", "description": "Treść w Markdown"},
        "synonyms": _array(STR),
        "categories": _array(_object({"slug": STR, "name": STR})),
        "related": _array(_object({"slug": STR, "name": STR, "shortDefinition": STR, "url": STR})),
        "articles": _array(_object({"slug": STR, "title": STR, "url": STR})),
        "url": STR,
        "updatedAt": {"type": ["string", "null"], "description": "ISO 8601"},
        "mentions": MENTIONS,
        **BUDGET,
    },
    {*OPTIONAL, *ENGLISH},
)
ARTICLE_OUTPUT = _entry(
    {
        "title": STR,
        "slug": STR,
        "lead": STR,
        "body": {"type": "string", "description": "Treść w Markdown"},
        "url": STR,
        "publishedAt": NULLABLE_STR,
        "updatedAt": NULLABLE_STR,
        "series": {
            "type": ["object", "null"],
            "properties": {"name": STR, "slug": STR},
            "required": ["name", "slug"],
        },
        "terms": _array(_object({"slug": STR, "name": STR, "shortDefinition": STR, "url": STR})),
        "previous": ARTICLE_REF,
        "next": ARTICLE_REF,
        "mentions": MENTIONS,
        **BUDGET,
    },
    OPTIONAL,
)
ARTICLE_HIT = _object({"title": STR, "slug": STR, "lead": STR, "url": STR, "weak": WEAK})


def _input(properties: dict, required: list[str]) -> dict:
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _reading(answer: search.Answer) -> dict:
    """The answer's reading for structured content: `weak` always, `didYouMean` and
    `corrections` only when the engine corrected a word."""
    data = {"weak": answer.weak}
    if answer.did_you_mean:
        data["didYouMean"] = answer.did_you_mean
        data["corrections"] = dict(answer.corrections)
    return data


def _closest_only(answer: search.Answer) -> bool:
    """Whether the engine matched none of the query's words and the hits are only the
    closest candidates (or none): then `suggestions` keeps the meaning it had before answers
    were never empty. A partial match matched some words, so it is not a mere candidate."""
    return answer.weak and not any(h.match == "partial" for h in answer.hits)


def _answer_text(answer: search.Answer, lines: list[str], *, confident: str, weak: str) -> str:
    """A search's text: a confident answer under `confident`, a guess said first to be one
    (`weak`), and "did you mean" with the corrected query when the engine corrected words.
    The query is the user's text, so it is escaped like every plain-text field."""
    head = (weak if answer.weak else confident).format(query=markdown_text(answer.query))
    text = "\n\n".join(part for part in (head, "\n".join(lines)) if part)
    if answer.did_you_mean:
        text += f"\n\nCzy chodziło o: „{markdown_text(answer.did_you_mean)}”?"
    return text


WEAK_MARK = ", słabe dopasowanie"
# As many "did you mean" slugs as `suggestions` listed before answers were never empty.
SUGGESTIONS = 3


@features.tool(
    cacheable=True,
    name="search_term",
    title="Szukaj pojęcia",
    description=(
        "Szuka pojęć w słowniku: nazwy polskie i angielskie, synonimy, skróty, literówki, "
        "pytania („czym jest MCP”), porównania („SSE vs WebSocket”: oba pojęcia na początku) "
        "albo opis pojęcia. Zwraca pojęcia od najtrafniejszego, ze slugiem, krótką definicją "
        "i adresem strony; pełny wpis da get_term ze slugiem. Gdy nic nie pasuje pewnie, "
        "zwraca najbliższe pojęcia oznaczone jako słabe dopasowania (weak: true, także przy "
        "każdym wyniku, który pasuje tylko częścią słów); didYouMean podaje zapytanie "
        "z poprawionymi literówkami."
    ),
    input_schema=_input({"query": QUERY, "limit": LIMIT}, ["query"]),
    output_schema=_object(
        {"query": STR, "results": _array(TERM_HIT), **READING, "suggestions": _array(STR)},
        ["query", "results", "weak"],
    ),
)
def search_term(arguments: dict, ctx) -> ToolResult:
    answer = search.find_terms(query=arguments["query"], limit=int(arguments.get("limit", 10)))
    to_term, _to_article = urls_on(site_url())
    results = [
        {
            "name": h.title,
            "slug": h.slug,
            "shortDefinition": h.summary,
            "url": to_term(h.slug),
            "score": h.score,
            "weak": h.weak,
        }
        for h in answer.hits
    ]
    data = {"query": answer.query, "results": results, **_reading(answer)}
    if _closest_only(answer):
        data["suggestions"] = [h.slug for h in answer.hits[:SUGGESTIONS]]
    if not results:
        text = _answer_text(
            answer,
            [],
            confident="",
            weak="Brak pojęć pasujących do „{query}”. Spróbuj innego sformułowania albo "
            "list_terms, by przejrzeć słownik.",
        )
        return ToolResult(text, data)
    lines = [
        f"- **{markdown_text(r['name'])}** (`{r['slug']}`"
        f"{WEAK_MARK if r['weak'] and not answer.weak else ''}): "
        f"{markdown_text(r['shortDefinition'])} {r['url']}"
        for r in results
    ]
    text = _answer_text(
        answer,
        lines,
        confident="Pojęcia pasujące do „{query}”:",
        weak="Brak pewnych dopasowań do „{query}”. Najbliższe pojęcia (mogą nie być tym, "
        "czego szukasz):",
    )
    return ToolResult(text, data)


@features.tool(
    cacheable=True,
    name="get_term",
    title="Pobierz pojęcie",
    description=(
        "Pobiera jedno pojęcie po slugu: krótką definicję, treść (Markdown), synonimy, "
        "kategorie, pojęcia powiązane i artykuły (z adresami), pojęcia wspomniane w treści, "
        "adres strony i datę aktualizacji. Przy nieznanym slugu błąd podaje najbliższe "
        "istniejące slugi. Odpowiedź ma budżet: treść dłuższa niż 20 000 znaków jest skracana "
        "(bodyTruncated), a pojęcia wspomniane w treści są podane nazwą i adresem, najwyżej "
        "20 (mentionsTotal mówi, ile ich jest); całość podaje zasób glossary://terms/{slug} "
        "(resources/read, pole resource)."
    ),
    input_schema=_input({"slug": SLUG}, ["slug"]),
    output_schema=TERM_OUTPUT,
)
def get_term(arguments: dict, ctx) -> ToolResult:
    slug = normalize_slug(arguments["slug"])
    detail = selectors.term_detail(slug=slug, html=False)
    if detail is None:
        close = search.closest_term_slugs(text=arguments["slug"])
        hint = (
            f"Czy chodziło o: {', '.join(close)}? Wywołaj get_term z jednym z tych slugów."
            if close
            else "Znajdź właściwy slug narzędziem search_term."
        )
        return ToolResult.error(f"Nie ma opublikowanego pojęcia o slugu „{slug}”. {hint}")
    data = term_data(detail, site_url())
    return ToolResult(term_markdown(data), data)


LETTERS = [*INDEX_LETTERS, OTHER_LETTER]


def resolve_category(value: str, choices: list[tuple[str, str]]) -> str | None:
    """The slug of the category `value` names, by slug or by name, in any case, with or
    without Polish letters ("Agenci AI", "agenci-ai", "AGENCI ai", "protokoly"); None if
    none does."""
    wanted, as_slug = fold(value), polish_slugify(value)
    for slug, name in choices:
        if slug == as_slug or fold(name) == wanted:
            return slug
    return None


def _next_page_text(arguments: dict, cursor: str) -> str:
    """How to get the next page, as a call a model can copy: the same filters plus `cursor`."""
    call = orjson.dumps({**arguments, "cursor": cursor}).decode()
    return (
        "\nTo nie wszystko. Następna strona: wywołaj list_terms z argumentami "
        f"{call} (te same filtry i cursor z tej odpowiedzi)."
    )


@features.tool(
    cacheable=True,
    name="list_terms",
    title="Lista pojęć",
    description=(
        "Wypisuje opublikowane pojęcia w polskim porządku alfabetycznym, opcjonalnie tylko "
        "z jednej litery indeksu (A–Ż lub #) albo z jednej kategorii (nazwa, np. „Agenci AI”, "
        "albo slug, np. agenci-ai; wielkość liter i polskie znaki nie mają znaczenia; "
        "nieznana kategoria zwraca błąd z listą istniejących). Wynik jest stronicowany: "
        "tekst odpowiedzi podaje dokładne wywołanie dające następną stronę."
    ),
    input_schema=_input(
        {
            "letter": {
                "type": "string",
                "enum": [*LETTERS, *(letter.lower() for letter in INDEX_LETTERS)],
                "description": "Litera indeksu (A–Ż albo # dla pozostałych; wielkość liter "
                "bez znaczenia)",
            },
            "category": {
                "type": "string",
                "minLength": 1,
                "maxLength": 100,
                "description": "Kategoria: nazwa lub slug, dowolna wielkość liter, polskie "
                "znaki opcjonalne",
            },
            "cursor": {
                "type": "string",
                "description": "Z poprzedniej strony (nextCursor), razem z tymi samymi filtrami",
            },
        },
        [],
    ),
    output_schema=_object(
        {
            "terms": _array(
                _object({"name": STR, "slug": STR, "shortDefinition": STR, "url": STR})
            ),
            "nextCursor": STR,
        },
        ["terms"],
    ),
)
def list_terms(arguments: dict, ctx) -> ToolResult:
    letter = arguments.get("letter")
    letter = letter.upper() if letter else None
    category = arguments.get("category")
    if category is not None:
        choices = selectors.categories()
        category = resolve_category(category, choices)
        if category is None:
            valid = "; ".join(f"„{name}” ({slug})" for slug, name in choices)
            return ToolResult.error(
                f"Nie ma kategorii „{arguments['category']}”. Istniejące kategorie (nazwa i "
                f"slug, oba działają): {valid or 'brak'}. Wywołaj list_terms z jedną z nich."
            )
    kind = f"list_terms:{letter or ''}:{category or ''}"
    try:
        after = read_cursor(arguments.get("cursor") or None, kind)
    except InvalidParams:
        return ToolResult.error(
            "Ten cursor nie pasuje do tych filtrów albo jest uszkodzony. Podaj cursor "
            "dokładnie tak, jak go zwróciła poprzednia strona, z tymi samymi filtrami "
            "(letter, category), albo pomiń cursor, by zacząć od początku."
        )
    size = settings.MCP_PAGE_SIZE
    rows = selectors.term_page(
        letter=letter, category=category, after=tuple(after) if after else None, limit=size
    )
    page = rows[:size]
    to_term, _to_article = urls_on(site_url())
    data = {
        "terms": [
            {
                "name": r["name"],
                "slug": r["slug"],
                "shortDefinition": r["short_definition"],
                "url": to_term(r["slug"]),
            }
            for r in page
        ]
    }
    if len(rows) > size:
        data["nextCursor"] = make_cursor(kind, [page[-1]["sort_key"], page[-1]["id"]])
    lines = [
        f"- [{markdown_text(t['name'])}]({t['url']}) (`{t['slug']}`): "
        f"{markdown_text(t['shortDefinition'])}"
        for t in data["terms"]
    ]
    if not lines:
        lines = ["Brak opublikowanych pojęć dla tych filtrów."]
    if "nextCursor" in data:
        filters = {k: v for k, v in (("letter", letter), ("category", category)) if v}
        lines.append(_next_page_text(filters, data["nextCursor"]))
    return ToolResult("\n".join(lines), data)


@features.tool(
    cacheable=True,
    name="search_articles",
    title="Szukaj artykułów",
    description=(
        "Szuka opublikowanych artykułów po tytule, wstępie i treści (także pytania i "
        "fragmenty słów). Zwraca tytuł, slug, wstęp i adres strony; pełny tekst da "
        "get_article ze slugiem. Gdy nic nie pasuje pewnie, zwraca artykuły o najbliższych "
        "pojęciach oznaczone jako słabe dopasowania (weak: true, także przy każdym wyniku, "
        "który pasuje tylko częścią słów); didYouMean podaje zapytanie z poprawionymi "
        "literówkami."
    ),
    input_schema=_input({"query": QUERY, "limit": LIMIT}, ["query"]),
    output_schema=_object(
        {"query": STR, "results": _array(ARTICLE_HIT), **READING}, ["query", "results", "weak"]
    ),
)
def search_articles(arguments: dict, ctx) -> ToolResult:
    answer = search.find_articles(query=arguments["query"], limit=int(arguments.get("limit", 10)))
    _to_term, to_article = urls_on(site_url())
    results = [
        {
            "title": h.title,
            "slug": h.slug,
            "lead": h.summary,
            "url": to_article(h.slug),
            "weak": h.weak,
        }
        for h in answer.hits
    ]
    data = {"query": answer.query, "results": results, **_reading(answer)}
    if not results:
        text = _answer_text(
            answer,
            [],
            confident="",
            weak="Brak artykułów pasujących do „{query}”. Spróbuj innego sformułowania albo "
            "search_term, by znaleźć pojęcie i artykuły, które go używają.",
        )
        return ToolResult(text, data)
    lines = [
        f"- [{markdown_text(r['title'])}]({r['url']}) (`{r['slug']}`"
        f"{WEAK_MARK if r['weak'] and not answer.weak else ''}): {markdown_text(r['lead'])}"
        for r in results
    ]
    text = _answer_text(
        answer,
        lines,
        confident="",
        weak="Brak pewnych dopasowań do „{query}”. Najbliższe artykuły (mogą nie być tym, "
        "czego szukasz):",
    )
    return ToolResult(text, data)


@features.tool(
    cacheable=True,
    name="get_article",
    title="Pobierz artykuł",
    description=(
        "Pobiera jeden opublikowany artykuł po slugu: wstęp, treść (Markdown), pojęcia "
        "ze słownika, których używa, serię z poprzednim i następnym artykułem oraz adresy "
        "stron. Przy nieznanym slugu błąd podaje najbliższe istniejące slugi. Odpowiedź ma "
        "budżet: treść dłuższa niż 20 000 znaków jest skracana (bodyTruncated), a pojęcia "
        "wspomniane w treści są podane nazwą i adresem, najwyżej 20 (mentionsTotal mówi, ile "
        "ich jest); całość podaje zasób glossary://articles/{slug} (resources/read, pole "
        "resource)."
    ),
    input_schema=_input({"slug": SLUG}, ["slug"]),
    output_schema=ARTICLE_OUTPUT,
)
def get_article(arguments: dict, ctx) -> ToolResult:
    slug = normalize_slug(arguments["slug"])
    detail = selectors.article_detail(slug=slug, html=False)
    if detail is None:
        close = search.closest_article_slugs(text=arguments["slug"])
        hint = (
            f"Czy chodziło o: {', '.join(close)}? Wywołaj get_article z jednym z tych slugów."
            if close
            else "Znajdź właściwy slug narzędziem search_articles."
        )
        return ToolResult.error(f"Nie ma opublikowanego artykułu o slugu „{slug}”. {hint}")
    data = article_data(detail, site_url())
    return ToolResult(article_markdown(data), data)
