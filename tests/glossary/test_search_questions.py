"""Relevance for the questions people and agents really ask (issue 10): Polish and English
question frames, how-to and why questions, comparisons (either compared term counts), a
concept described without its name, questions typed without diacritics, inflected or with a
typo, over the demo content.

Prints MRR and top-1/top-3 per kind and overall; fails below MRR 0.85 on PostgreSQL (the
production path) and below a lower floor on SQLite. A query's rank is the position of the
first expected slug in the top 10.
"""

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from glossary.search import term_search

pytestmark = pytest.mark.django_db

# (kind, query, expected slugs: any of them counts)
QUESTIONS = [
    # What is X: Polish frames
    ("question", "czym jest mcp", {"mcp"}),
    ("question", "co to jest sse", {"sse"}),
    ("question", "co to jest json-rpc", {"json-rpc"}),
    ("question", "co to embedding", {"embedding"}),
    ("question", "co oznacza idempotentność", {"idempotentnosc"}),
    ("question", "co znaczy halucynacja modelu", {"halucynacja"}),
    ("question", "czym jest okno kontekstowe", {"okno-kontekstowe"}),
    ("question", "czym są zasoby w MCP", {"zasob"}),
    ("question", "czym jest serwer MCP?", {"serwer-mcp"}),
    ("question", "co to jest webhook i do czego służy", {"webhook"}),
    ("question", "kim jest agent AI", {"agent"}),
    ("question", "co to jest ten RAG", {"rag"}),
    # How: how does it work, how to do it
    ("howto", "jak działa paginacja kursorowa", {"paginacja", "kursor"}),
    ("howto", "jak działa long polling", {"long-polling"}),
    ("howto", "jak działają powiadomienia w JSON-RPC", {"powiadomienie"}),
    ("howto", "jak używać MCP Inspector", {"mcp-inspector"}),
    ("howto", "jak skonfigurować CORS", {"cors"}),
    ("howto", "jak wywołać narzędzie", {"narzedzie", "wywolanie-funkcji"}),
    ("howto", "jak wysłać zapytanie curlem", {"curl"}),
    ("howto", "jak działa streamable http", {"streamable-http"}),
    # Why and what for
    ("why", "po co jest idempotentność", {"idempotentnosc"}),
    ("why", "do czego służy token dostępu", {"token-dostepu"}),
    ("why", "do czego służy nagłówek Origin", {"naglowek-origin"}),
    ("why", "dlaczego backpressure", {"backpressure"}),
    ("why", "po co keep-alive", {"keep-alive"}),
    ("why", "do czego służy kursor", {"kursor"}),
    ("why", "dlaczego modele halucynują", {"halucynacja"}),
    # Comparisons: either term is a right answer, both should lead
    ("comparison", "różnica między sse a websocket", {"sse", "websocket"}),
    ("comparison", "sse czy websocket", {"sse", "websocket"}),
    ("comparison", "rest vs graphql", {"rest", "graphql"}),
    ("comparison", "json-rpc a rest", {"json-rpc", "rest"}),
    ("comparison", "czym się różni grpc od json-rpc", {"grpc", "json-rpc"}),
    ("comparison", "long polling czy sse", {"long-polling", "sse"}),
    ("comparison", "stdio vs streamable http", {"stdio", "streamable-http"}),
    ("comparison", "porównanie lsp i dap", {"lsp", "dap"}),
    ("comparison", "webhook versus long polling", {"webhook", "long-polling"}),
    ("comparison", "difference between json and json schema", {"json", "json-schema"}),
    # Described without the name: found through the definition
    ("description", "wektor liczb który oddaje znaczenie tekstu", {"embedding"}),
    ("description", "powtórzenie operacji daje ten sam skutek", {"idempotentnosc"}),
    ("description", "wiadomość bez pola id na którą nikt nie odpowiada", {"powiadomienie"}),
    ("description", "serwer wstrzymuje odpowiedź aż pojawią się nowe dane", {"long-polling"}),
    ("description", "wolny odbiorca spowalnia szybkiego nadawcę", {"backpressure"}),
    ("description", "maksymalna liczba tokenów którą model przetwarza naraz", {"okno-kontekstowe"}),
    ("description", "model zmyśla cytat który brzmi wiarygodnie", {"halucynacja"}),
    ("description", "kilka wiadomości json-rpc wysłanych naraz jako tablica", {"batch-json-rpc"}),
    ("description", "nieprzezroczysty znacznik pozycji kolejnej strony", {"kursor"}),
    ("description", "edytor rozmawia z serwerem języka", {"lsp"}),
    # English questions
    ("english", "what is model context protocol", {"mcp"}),
    ("english", "what is a webhook", {"webhook"}),
    ("english", "how does pagination work", {"paginacja"}),
    ("english", "what does idempotency mean", {"idempotentnosc"}),
    ("english", "why use server-sent events", {"sse"}),
    ("english", "what is function calling", {"wywolanie-funkcji"}),
    ("english", "what is an access token", {"token-dostepu"}),
    # Typed without diacritics
    ("ascii", "czym jest narzedzie w mcp", {"narzedzie"}),
    ("ascii", "co to jest slownik pojec", {"slownik"}),
    ("ascii", "jak dziala wersjonowanie protokolu", {"wersjonowanie-protokolu"}),
    ("ascii", "do czego sluzy identyfikator sesji", {"identyfikator-sesji"}),
    ("ascii", "roznica miedzy klientem a serwerem mcp", {"klient-mcp", "serwer-mcp"}),
    # Inflected forms inside the question
    ("inflected", "jak działają sesje", {"sesja"}),
    ("inflected", "po co są nagłówki origin", {"naglowek-origin"}),
    ("inflected", "czym są embeddingi", {"embedding"}),
    ("inflected", "jak pisać prompty dla modeli", {"prompt"}),
    # Typos in the frame or in the subject
    ("typo", "czym jset mcp", {"mcp"}),
    ("typo", "jak dziła paginacja", {"paginacja"}),
    ("typo", "co to jest websoket", {"websocket"}),
    ("typo", "różnca między sse a websocket", {"sse", "websocket"}),
    ("typo", "co oznacza halucynajca", {"halucynacja"}),
]

POSTGRES_MRR_FLOOR = 0.85
SQLITE_MRR_FLOOR = 0.75  # the Python ranking of the same tiers (README, "Search")


@pytest.fixture(scope="module")
def ranks(django_db_setup, django_db_blocker):
    """Per query: (kind, rank of the first expected slug or None, top 3), over the demo
    content loaded once and rolled back afterwards."""
    with django_db_blocker.unblock(), transaction.atomic():
        call_command("load_demo", verbosity=0)
        out = {}
        for kind, query, expected in QUESTIONS:
            slugs = [hit.slug for hit in term_search(query=query, limit=10)]
            rank = next((i for i, slug in enumerate(slugs, 1) if slug in expected), None)
            out[query] = (kind, rank, slugs[:3], expected)
        transaction.set_rollback(True)
    return out


def _metrics(values) -> tuple[float, float, float]:
    mrr = sum(1 / r for r in values if r) / len(values)
    top1 = sum(1 for r in values if r == 1) / len(values)
    top3 = sum(1 for r in values if r and r <= 3) / len(values)
    return mrr, top1, top3


def test_question_set_is_large_and_varied():
    """At least 60 distinct queries, every kind of the issue represented."""
    assert len(QUESTIONS) >= 60
    assert len({q for _k, q, _e in QUESTIONS}) == len(QUESTIONS)
    kinds = {k for k, _q, _e in QUESTIONS}
    assert kinds >= {"question", "howto", "why", "comparison", "description", "english", "ascii"}


def test_question_relevance_report(ranks, capsys):
    """Prints MRR, top-1 and top-3 per kind and overall (and every query not ranked first);
    holds MRR 0.85 on PostgreSQL and a lower documented floor on SQLite."""
    by_kind: dict[str, list] = {}
    for kind, rank, _top, _expected in ranks.values():
        by_kind.setdefault(kind, []).append(rank)
    mrr, top1, top3 = _metrics([r for _k, r, _t, _e in ranks.values()])
    with capsys.disabled():
        print(f"\nquestion relevance on {connection.vendor}: {len(ranks)} queries")
        print(f"  all          MRR {mrr:.3f}   top-1 {top1:.1%}   top-3 {top3:.1%}")
        for kind, values in by_kind.items():
            k_mrr, k_top1, k_top3 = _metrics(values)
            print(
                f"  {kind:<12} MRR {k_mrr:.3f}   top-1 {k_top1:.1%}   top-3 {k_top3:.1%}"
                f"   ({len(values)})"
            )
        for query, (_kind, rank, top, expected) in ranks.items():
            if rank != 1:
                print(f"  {query!r}: expected {sorted(expected)} at {rank or '>10'}; got {top}")
    floor = POSTGRES_MRR_FLOOR if connection.vendor == "postgresql" else SQLITE_MRR_FLOOR
    assert mrr >= floor


def test_comparisons_put_both_terms_first(ranks):
    """A comparison of two named terms lists both of them in its first two places."""
    for query, (kind, _rank, top, expected) in ranks.items():
        if kind == "comparison" and len(expected) == 2:
            assert set(top[:2]) == expected, (query, top)
