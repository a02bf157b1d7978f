"""How the engine reads a query that does not name its term the way the glossary does: a
colloquial derivation of a name, a typo beside correctly spelled words, a request wrapped around
the concept, an English name. On both databases (the SQLite path ranks the same way in Python).
"""

import pytest

from glossary import search
from glossary.search.query import Query
from glossary.search.ranking import FRAME_WORD_WEIGHT, OTHER_WORD_WEIGHT
from glossary.stemming import derived_bases
from tests.factories import make_term

pytestmark = pytest.mark.django_db


@pytest.fixture
def glossary():
    return {
        "agent": make_term(
            "Agent", short_definition="Program, który sam planuje kroki i wywołuje narzędzia."
        ),
        "token": make_term(
            "Token dostępu", short_definition="Krótki napis, który daje dostęp do zasobu."
        ),
        "prompt": make_term("Prompt", short_definition="Polecenie dla modelu językowego."),
        "curl": make_term("curl", short_definition="Program do wysyłania żądań HTTP z terminala."),
        "okno": make_term(
            "Okno kontekstowe",
            short_definition="Ile tekstu model językowy widzi naraz, mierzone w tokenach.",
        ),
        "model": make_term(
            "Model językowy", short_definition="Sieć, która przewiduje kolejne słowa tekstu."
        ),
        "cache": make_term(
            "Pamięć podręczna",
            short_definition="Kopia danych trzymana bliżej, by czytać je szybciej.",
            english_name="Cache",
            english_definition="A copy of data kept close so that reads are faster.",
        ),
    }


def first(query: str) -> str:
    hits = search.term_search(query=query)
    return hits[0].slug if hits else ""


@pytest.mark.parametrize(
    ("query", "slug"),
    [
        ("agencik", "agent"),
        ("tokenik dostępu", "token-dostepu"),
        ("promptowanie", "prompt"),
        ("curlnąć endpoint", "curl"),
    ],
)
def test_a_colloquial_derivation_of_a_name_finds_it(glossary, query, slug):
    """A diminutive, or a verb or its noun made from a borrowed name, finds the named term."""
    assert first(query) == slug


def test_derived_bases_leave_ordinary_words_alone():
    """Only a derivation's ending is undone, and never down to a base too short to name
    anything alone or from a word's own last letter (a typo is not a diminutive)."""
    assert derived_bases("agencik") == ["agenc", "agent"]
    assert derived_bases("rozmowa") == []
    assert derived_bases("slownk") == []
    assert derived_bases("token") == []


def test_a_misspelled_name_word_counts_beside_correct_words(glossary):
    """The misspelled word of a query is read as the name word one typo away, even when the
    other words matched something, and the answer says how it was read."""
    answer = search.find_terms(query="limit okna kontekstowgo modelu")
    assert answer.hits[0].slug == "okno-kontekstowe"
    assert answer.corrections == {"kontekstowgo": "kontekstowe"}


def test_in_a_request_the_words_that_name_concepts_weigh_most(glossary):
    """A request wrapped around a concept ranks the concept it names above terms that only
    share the task's words."""
    query = "Potrzebuję krótkiego wyjaśnienia dla użytkownika, czym jest okno kontekstowe modelu"
    assert first(query) == "okno-kontekstowe"


def test_request_and_frame_weights():
    """A request frame's words weigh FRAME_WORD_WEIGHT; other words of a request
    OTHER_WORD_WEIGHT (before the engine gives full weight to those some name holds); a
    statement's words all weigh alike."""
    request = Query("wyjaśnij użytkownikowi okno kontekstowe")
    assert request.request
    assert request.weights == [FRAME_WORD_WEIGHT, OTHER_WORD_WEIGHT, OTHER_WORD_WEIGHT]
    statement = Query("model widzi za mało tekstu naraz")
    assert not statement.request
    assert set(statement.weights) == {1.0}


def test_an_english_name_and_definition_are_searched(glossary):
    """The English name finds its term like the Polish one, and the English definition's words
    like a definition's."""
    assert first("cache") == "pamiec-podreczna"
    assert first("data kept close so reads are faster") == "pamiec-podreczna"


def test_a_query_sharing_only_a_word_beginning_gets_weak_guesses(glossary):
    """Never empty while a word of the query begins like a name word: those terms come back
    as weak guesses."""
    answer = search.find_terms(query="agentowość kwiatowa")
    assert answer.hits and answer.weak
    assert answer.hits[0].slug == "agent" and answer.hits[0].weak


def test_the_debug_mode_explains_the_reading_and_the_ranking(glossary):
    """`explain` says which words were kept (with stems and weights) and which frames were
    dropped, how typos were read, and per hit its tier and where each word was found."""
    from glossary.search.explain import explain

    report = explain("wyjaśnij użytkownikowi limit okna kontesktowe")
    assert report["request"] is True
    assert "wyjaśnij" in report["dropped"]
    kept = {w["word"]: w for w in report["words"]}
    assert kept["użytkownikowi"]["weight_unless_named"] == FRAME_WORD_WEIGHT
    assert report["corrections"] == {"kontesktowe": "kontekstowe"}
    top = report["hits"][0]
    assert top["slug"] == "okno-kontekstowe"
    assert top["found_in"]["okna"] == "names" and top["found_in"]["kontesktowe"] == "names"


def test_explain_search_prints_json(glossary):
    """`manage.py explain_search` prints the same account as JSON."""
    import json
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("explain_search", "agencik", stdout=out)
    assert json.loads(out.getvalue())["hits"][0]["slug"] == "agent"
