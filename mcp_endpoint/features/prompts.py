"""Prompt templates over the glossary, each embedding the resources it talks about (so the
model gets the entry itself, not a paraphrase) plus an instruction in Polish; descriptions and
errors are Polish too, and name entries by their names, not slugs.

A missing argument or an unknown slug is -32602 with a message naming what to pass instead
(every revision's server/prompts §Error Handling). A prompt's messages depend only on its
arguments and the published content, so each is declared `cacheable`.
"""

from glossary import search

from ..core.errors import InvalidParams
from ..core.registry import Features, PromptArgument
from .resources import article_entry, term_entry

features = Features()
AUDIENCES = ["początkujący", "programista", "architekt", "menedżer", "student"]


def _complete_terms(prefix: str) -> list[str]:
    return search.complete_term_slugs(prefix=prefix, limit=101)


def _complete_articles(prefix: str) -> list[str]:
    return search.complete_article_slugs(prefix=prefix, limit=101)


def _complete_audience(prefix: str) -> list[str]:
    return [a for a in AUDIENCES if a.startswith(prefix.casefold())]


def _embedded(contents: dict) -> dict:
    return {"role": "user", "content": {"type": "resource", "resource": contents}}


def _text(text: str) -> dict:
    return {"role": "user", "content": {"type": "text", "text": text}}


def _term(slug: str, argument: str) -> tuple[dict, str]:
    entry = term_entry(slug)
    if entry is None:
        close = search.closest_term_slugs(text=slug)
        hint = (
            f" Czy chodziło o: {', '.join(close)}?"
            if close
            else " Znajdź slug narzędziem search_term albo przez uzupełnianie argumentu."
        )
        raise InvalidParams(
            f"Argument „{argument}”: nie ma opublikowanego pojęcia o slugu „{slug}”.{hint}",
            data={"argument": argument, "suggestions": close},
        )
    return entry


@features.prompt(
    cacheable=True,
    name="explain_term",
    title="Wyjaśnij pojęcie",
    description="Wyjaśnienie pojęcia ze słownika po polsku dla wybranego odbiorcy, oparte na "
    "jego wpisie.",
    arguments=(
        PromptArgument("slug", "Slug pojęcia, np. z search_term", complete=_complete_terms),
        PromptArgument(
            "audience",
            "Dla kogo wyjaśnienie (np. początkujący, programista)",
            required=False,
            complete=_complete_audience,
        ),
    ),
)
def explain_term(arguments: dict, ctx) -> dict:
    contents, name = _term(arguments["slug"], "slug")
    audience = arguments.get("audience") or "czytelnik bez specjalistycznej wiedzy"
    instruction = (
        "Wyjaśnij po polsku pojęcie z załączonego wpisu słownika. "
        f"Odbiorca: {audience}. Zacznij od jednozdaniowej definicji, potem podaj przykład "
        "z praktyki i wymień pojęcia powiązane. Opieraj się na wpisie; na końcu podaj adres "
        "strony z sekcji „Źródło”."
    )
    return {
        "description": f"Wyjaśnienie pojęcia „{name}”",
        "messages": [_embedded(contents), _text(instruction)],
    }


@features.prompt(
    cacheable=True,
    name="compare_terms",
    title="Porównaj pojęcia",
    description="Porównanie dwóch pojęć ze słownika po polsku: co je łączy, czym się różnią.",
    arguments=(
        PromptArgument("first", "Slug pierwszego pojęcia", complete=_complete_terms),
        PromptArgument("second", "Slug drugiego pojęcia", complete=_complete_terms),
    ),
)
def compare_terms(arguments: dict, ctx) -> dict:
    first, first_name = _term(arguments["first"], "first")
    second, second_name = _term(arguments["second"], "second")
    if first["uri"] == second["uri"]:
        raise InvalidParams(
            f"Argumenty „first” i „second” wskazują to samo pojęcie ({first_name}). Podaj dwa "
            "różne pojęcia; jedno wyjaśni prompt explain_term.",
            data={"argument": "second"},
        )
    instruction = (
        "Porównaj po polsku dwa pojęcia z załączonych wpisów słownika: co je łączy, czym się "
        "różnią i kiedy używać którego. Zakończ krótką tabelą porównawczą i adresami obu stron."
    )
    return {
        "description": f"Porównanie pojęć „{first_name}” i „{second_name}”",
        "messages": [_embedded(first), _embedded(second), _text(instruction)],
    }


@features.prompt(
    cacheable=True,
    name="summarize_article",
    title="Streść artykuł",
    description="Streszczenie artykułu po polsku z listą pojęć ze słownika, których używa.",
    arguments=(PromptArgument("slug", "Slug artykułu", complete=_complete_articles),),
)
def summarize_article(arguments: dict, ctx) -> dict:
    slug = arguments["slug"]
    entry = article_entry(slug)
    if entry is None:
        close = search.closest_article_slugs(text=slug)
        hint = (
            f" Czy chodziło o: {', '.join(close)}?"
            if close
            else " Znajdź slug narzędziem search_articles albo przez uzupełnianie argumentu."
        )
        raise InvalidParams(
            f"Argument „slug”: nie ma opublikowanego artykułu o slugu „{slug}”.{hint}",
            data={"argument": "slug", "suggestions": close},
        )
    contents, title = entry
    instruction = (
        "Streść po polsku załączony artykuł w pięciu punktach, a potem wypisz pojęcia ze "
        "słownika, których używa, każde z jednozdaniowym wyjaśnieniem."
    )
    return {
        "description": f"Streszczenie artykułu „{title}”",
        "messages": [_embedded(contents), _text(instruction)],
    }
