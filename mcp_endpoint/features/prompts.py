"""Prompt templates over the glossary, each embedding the resources it talks about (so the
model gets the entry itself, not a paraphrase) plus an instruction in Polish.

A missing argument or an unknown slug is -32602 with a message naming what to pass instead
(every revision's server/prompts §Error Handling). A prompt's messages depend only on its
arguments and the published content, so each is declared `cacheable`.
"""

from glossary import search

from ..core.errors import InvalidParams
from ..core.registry import Features, PromptArgument
from .resources import read_article, read_term

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


def _term(slug: str, argument: str, ctx) -> dict:
    contents = read_term(slug, ctx)
    if contents is None:
        close = [h.slug for h in search.suggest_terms(text=slug.replace("-", " "))]
        hint = f" Closest slugs: {', '.join(close)}." if close else ""
        raise InvalidParams(
            f"Argument {argument!r}: no published term with slug {slug!r}.{hint}",
            data={"argument": argument, "suggestions": close},
        )
    return contents


@features.prompt(
    cacheable=True,
    name="explain_term",
    title="Wyjaśnij pojęcie",
    description="Explain a glossary term in Polish for a given audience, grounded in its entry.",
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
    contents = _term(arguments["slug"], "slug", ctx)
    audience = arguments.get("audience") or "czytelnik bez specjalistycznej wiedzy"
    instruction = (
        "Wyjaśnij po polsku pojęcie z załączonego wpisu słownika. "
        f"Odbiorca: {audience}. Zacznij od jednozdaniowej definicji, potem podaj przykład "
        "z praktyki i wymień pojęcia powiązane. Opieraj się na wpisie; na końcu podaj adres "
        "strony z sekcji „Źródło”."
    )
    return {
        "description": f"Wyjaśnienie pojęcia {arguments['slug']}",
        "messages": [_embedded(contents), _text(instruction)],
    }


@features.prompt(
    cacheable=True,
    name="compare_terms",
    title="Porównaj pojęcia",
    description="Compare two glossary terms in Polish: what they share and how they differ.",
    arguments=(
        PromptArgument("first", "Slug pierwszego pojęcia", complete=_complete_terms),
        PromptArgument("second", "Slug drugiego pojęcia", complete=_complete_terms),
    ),
)
def compare_terms(arguments: dict, ctx) -> dict:
    first = _term(arguments["first"], "first", ctx)
    second = _term(arguments["second"], "second", ctx)
    instruction = (
        "Porównaj po polsku dwa pojęcia z załączonych wpisów słownika: co je łączy, czym się "
        "różnią i kiedy używać którego. Zakończ krótką tabelą porównawczą i adresami obu stron."
    )
    return {
        "description": f"Porównanie pojęć {arguments['first']} i {arguments['second']}",
        "messages": [_embedded(first), _embedded(second), _text(instruction)],
    }


@features.prompt(
    cacheable=True,
    name="summarize_article",
    title="Streść artykuł",
    description="Summarize a glossary article in Polish, listing the glossary terms it uses.",
    arguments=(PromptArgument("slug", "Slug artykułu", complete=_complete_articles),),
)
def summarize_article(arguments: dict, ctx) -> dict:
    slug = arguments["slug"]
    contents = read_article(slug, ctx)
    if contents is None:
        raise InvalidParams(
            f"Argument 'slug': no published article with slug {slug!r}. "
            "Use the search_articles tool or complete this argument to find one.",
            data={"argument": "slug"},
        )
    instruction = (
        "Streść po polsku załączony artykuł w pięciu punktach, a potem wypisz pojęcia ze "
        "słownika, których używa, każde z jednozdaniowym wyjaśnieniem."
    )
    return {
        "description": f"Streszczenie artykułu {slug}",
        "messages": [_embedded(contents), _text(instruction)],
    }
