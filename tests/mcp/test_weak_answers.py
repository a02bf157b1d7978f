"""An agent can tell a confident answer from a guess: search_term and
search_articles answer from `glossary.search.find_terms`/`find_articles`, mark every result and
the whole answer `weak` or not, name the corrected query (`didYouMean`, `corrections`) and say
both in their Polish text, over the demo glossary, in both protocol eras."""

from dataclasses import replace

import pytest
from django.core.management import call_command
from jsonschema import Draft202012Validator

from glossary import search
from tests.mcp.helpers import call_tool, legacy, result_of

ERAS = ["legacy", "modern"]
GUESS = "Brak pewnych dopasowań do „{}”. Najbliższe {} (mogą nie być tym, czego szukasz):"


@pytest.fixture
def demo(db):
    call_command("load_demo", verbosity=0)


def _schema(client, name) -> dict:
    tools = result_of(legacy(client, "tools/list"))["tools"]
    return next(tool["outputSchema"] for tool in tools if tool["name"] == name)


def _call(client, name, query, era="legacy"):
    result = call_tool(client, name, {"query": query}, era=era)
    assert result["isError"] is False
    Draft202012Validator(_schema(client, name)).validate(result["structuredContent"])
    return result["structuredContent"], result["content"][0]["text"]


@pytest.mark.parametrize("era", ERAS)
def test_a_confident_answer_is_not_weak_and_reads_as_before(client, demo, era):
    """A query the engine matches well is a confident answer: `weak` false on the answer and
    on its best hit, no `didYouMean`, no `suggestions`, and the text lists the terms under
    "Pojęcia pasujące do …" as it always did."""
    data, text = _call(client, "search_term", "mcp", era)
    assert data["weak"] is False and data["results"][0]["weak"] is False
    assert data["results"][0]["slug"] == "mcp"
    assert "didYouMean" not in data and "corrections" not in data and "suggestions" not in data
    assert text.startswith("Pojęcia pasujące do „mcp”:\n\n- **MCP** (`mcp`): ")
    assert "słabe" not in text and "Czy chodziło o" not in text


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("query", "meant", "typed", "reading", "first"),
    [
        ("serwr mcp", "serwer mcp", "serwr", "serwer", "serwer-mcp"),
        ("halucynajca modelu", "halucynacja modelu", "halucynajca", "halucynacja", "halucynacja"),
    ],
)
def test_a_typo_beside_a_correct_word_gets_did_you_mean(
    client, demo, era, query, meant, typed, reading, first
):
    """A typo next to a correctly spelled word: the structured answer names the corrected
    query (`didYouMean`) and each corrected word's reading (`corrections`), and the text ends
    with "Czy chodziło o: „…”?"."""
    data, text = _call(client, "search_term", query, era)
    assert data["didYouMean"] == meant
    assert data["corrections"] == {typed: reading}
    assert data["results"][0]["slug"] == first
    assert text.endswith(f"\n\nCzy chodziło o: „{meant}”?")


def test_partial_matches_in_a_confident_answer_are_marked_weak(client, demo):
    """Hits that match only some of the query's words are `weak` in the structured content
    and "słabe dopasowanie" in the text, while the confident hit above them is not."""
    data, text = _call(client, "search_term", "halucynajca modelu")
    assert data["weak"] is False
    first, *rest = data["results"]
    assert first["weak"] is False and rest and all(hit["weak"] for hit in rest)
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert "słabe dopasowanie" not in lines[0]
    assert all(
        f"`{hit['slug']}`, słabe dopasowanie)" in line
        for hit, line in zip(rest, lines[1:], strict=True)
    )


@pytest.mark.parametrize("era", ERAS)
def test_a_nonsense_query_with_words_is_answered_with_marked_guesses(client, demo, era):
    """Never empty: when no word matches, search_term lists the closest terms, each `weak`,
    the answer `weak`, with `suggestions` (their slugs, as before) and a text that says first
    that these are guesses."""
    data, text = _call(client, "search_term", "blorf serwerowość", era)
    assert data["results"] and all(hit["weak"] for hit in data["results"])
    assert data["weak"] is True
    assert data["suggestions"] == [hit["slug"] for hit in data["results"]][:3]
    assert "serwer-mcp" in data["suggestions"]
    assert text.startswith(GUESS.format("blorf serwerowość", "pojęcia") + "\n\n- **Serwer MCP**")


@pytest.mark.parametrize("era", ERAS)
def test_search_articles_answers_a_nonsense_query_with_marked_guesses(client, demo, era):
    """Never empty for articles too: the articles of the closest terms, each `weak`, the
    answer `weak`, and a text that says first that these are guesses."""
    data, text = _call(client, "search_articles", "blorf serwerowość", era)
    assert data["results"] and all(hit["weak"] for hit in data["results"])
    assert data["weak"] is True
    assert text.startswith(GUESS.format("blorf serwerowość", "artykuły") + "\n\n- [")


def test_a_partial_answer_is_weak_but_keeps_no_suggestions(client, demo):
    """An answer whose best hit matches only some words is a guess (`weak`), but the engine
    did match words, so `suggestions` (kept for "found nothing") is absent."""
    data, text = _call(client, "search_term", "zzzz-nic")
    assert data["weak"] is True and data["results"]
    assert all(hit["weak"] for hit in data["results"])
    assert "suggestions" not in data
    assert text.startswith(GUESS.format("zzzz-nic", "pojęcia"))


HOSTILE = "[x](javascript:alert(1)) <b>serwr</b> mcp\r\n# nagłówek"
MEANT = "[x](javascript:alert(1)) <b>serwer</b> mcp\r\n# nagłówek"


@pytest.fixture
def hostile_reading(monkeypatch):
    """Whatever the engine reads the hostile query as, its "did you mean" is the query with
    the typo corrected and every hostile character kept: the surfaces must escape it."""
    for name in ("find_terms", "find_articles"):
        engine = getattr(search, name)

        def corrected(*, query, limit=10, engine=engine):
            answer = engine(query=query, limit=limit)
            return replace(answer, did_you_mean=MEANT, corrections={"serwr": "serwer"})

        monkeypatch.setattr(search, name, corrected)


@pytest.mark.parametrize("name", ["search_term", "search_articles"])
def test_hostile_query_is_escaped_in_the_text(client, demo, hostile_reading, name):
    """The query and the corrected query are the user's text: in the Markdown text they are
    escaped like every plain-text field, on one line (no link, no HTML tag, no heading reads
    as markup), while the structured content keeps them as typed."""
    data, text = _call(client, name, HOSTILE)
    assert "[x](" not in text and "<b>" not in text and "\n# " not in text
    assert "„\\[x\\](javascript:alert(1)) \\<b\\>serwr\\</b\\> mcp \\# nagłówek”" in text
    assert "Czy chodziło o: „\\[x\\](javascript:alert(1)) \\<b\\>serwer\\</b\\> mcp \\# " in text
    assert data["query"] == HOSTILE and data["didYouMean"] == MEANT


@pytest.mark.parametrize(
    ("name", "query", "queries"),
    [
        ("search_term", "serwr mcp", 1),  # found: the engine's statement alone
        ("search_term", "blorf serwerowość", 2),  # nothing found: the closest names too
        ("search_articles", "serwr mcp", 1),
    ],
)
def test_weak_answers_keep_the_query_budget(
    client, demo, settings, django_assert_num_queries, name, query, queries
):
    """find_terms costs the search's one query, two when it falls back to the closest names;
    marking and correcting cost nothing more (result cache off, every call counted)."""
    settings.MCP_RESULT_CACHE_SIZE = 0
    call_tool(client, name, {"query": query})  # the engine's planner statistics read
    with django_assert_num_queries(queries):
        call_tool(client, name, {"query": query})


@pytest.mark.xfail(
    strict=True,
    reason="glossary.search: a query none of whose words shares a typo key, trigrams or its first "
    "four letters with a name gets no term (the semantic arm, when on, answers it)",
)
def test_a_query_of_unknown_words_only_is_never_empty(client, demo):
    """Never empty, even when no word of the query resembles any name: the closest terms
    still come back, weak."""
    data, _text = _call(client, "search_term", "xyzzy qwertz")
    assert data["results"] and data["weak"] is True
