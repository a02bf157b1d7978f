"""The search engine (`glossary/search.py`): what it matches, how it ranks, what it never shows,
how many queries it costs, and (on PostgreSQL) that its conditions can use the indexes."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from glossary import search
from glossary.importexport import SourceRow
from glossary.importing import import_terms
from glossary.models import Term
from glossary.search.query import Query
from glossary.stemming import (
    deletion_keys,
    document_stems,
    english_singulars,
    polish_alternations,
    query_stems,
    stem,
)
from tests.factories import make_article, make_draft_term, make_future_term, make_term

pytestmark = pytest.mark.django_db


def slugs(hits):
    return [hit.slug for hit in hits]


@pytest.fixture
def glossary():
    """A small glossary with names that compete for the same queries."""
    return {
        "slownik": make_term(
            "Słownik", short_definition="Zbiór pojęć z definicjami.", synonyms=["glossary"]
        ),
        "serwer": make_term(
            "Serwer MCP",
            short_definition="Program udostępniający narzędzia agentom.",
            synonyms=["MCP server", "serwera MCP"],
            body="Serwer odpowiada na żądania klientów.",
        ),
        "sse": make_term(
            "SSE",
            short_definition="Jednokierunkowy strumień zdarzeń przez HTTP.",
            synonyms=["Server-Sent Events"],
        ),
        "jsonrpc": make_term("JSON-RPC", short_definition="Protokół zdalnego wywołania procedur."),
        "streamable": make_term(
            "Streamable HTTP", short_definition="Transport MCP oparty na jednym punkcie HTTP."
        ),
        "agent": make_term("Agent", short_definition="Program działający w imieniu użytkownika."),
        "kontekst": make_term(
            "Context engineering",
            short_definition="Dobór tego, co trafia do kontekstu modelu.",
            synonyms=["inżynieria kontekstu"],
        ),
        "powiadomienie": make_term(
            "Powiadomienie", short_definition="Wiadomość JSON-RPC bez identyfikatora."
        ),
    }


# --- Stems ---------------------------------------------------------------------------------


def test_inflected_forms_share_a_stem():
    """Snowball Polish reduces inflected forms (diacritics kept or typed without) to one stem."""
    assert document_stems("serwerów").split() == document_stems("serwer").split() == ["serwer"]
    assert "agent" in query_stems("agentow")  # "ów" typed as "ow"
    assert document_stems("powiadomienia") == document_stems("powiadomień")


@pytest.mark.parametrize(
    "word, stop",
    [("jset", True), ("cyzm", True), ("ajki", True), ("jaok", True), ("jest", True),
     ("tejs", False), ("kaja", False), ("jsté", False), ("jeso", False), ("mzcy", False)],
)  # fmt: skip
def test_a_short_frame_with_two_neighbouring_letters_swapped_is_a_stop_word(word, stop):
    """The four-letter question frames ("czym", "jaka", "jaki", "jest", "jako") typed with two
    neighbouring letters swapped are stop words; other orders of their letters, and words
    one substitution away, are not (four letters are too few to tell such a typo from a
    subject word)."""
    from glossary.search.query import is_stop_word

    assert is_stop_word(word) is stop


def test_kept_word_analyses_are_left_alone_by_the_garbage_collector():
    """What the engine keeps per word (its analysis, its tsquery texts) is plain tuples of
    strings and booleans, which the cyclic garbage collector stops tracking; kept objects of
    a class would be walked by every full collection (61,000 kept words made each a ~30 ms
    pause with the GIL held)."""
    import gc

    from glossary.search import postgres, query

    texts = [f"słowoanalizy{n}" for n in range(50)]
    for text in texts:
        postgres._word_texts(query.word(text), 4, False)
    for _ in range(2):  # a tuple is untracked once the tuples in it are: two passes
        gc.collect()
    assert not any(gc.is_tracked(query._analysis(text)) for text in texts)
    kept = [postgres._texts(query.word(t).stems, query.word(t).bases, 4, False) for t in texts]
    assert not any(gc.is_tracked(found) for found in kept)


def test_compounds_are_found_by_parts_and_glued():
    """A hyphenated name gives its parts and the glued word ("JSON-RPC": json, rpc, jsonrpc)."""
    assert set(document_stems("JSON-RPC").split()) == {"json", "rpc", "jsonrpc"}


def test_deletion_keys_link_a_swap_of_letters():
    """ "agnet" and "agent" share a one-deletion key; words under five letters get none."""
    assert set(deletion_keys("agnet")) & set(deletion_keys("agent"))
    assert deletion_keys("mcp") == []


@pytest.mark.parametrize(
    ("word", "singular"),
    [("tools", "tool"), ("llms", "llm"), ("capabilities", "capability"), ("caches", "cache"),
     ("boxes", "box"), ("apis", "api")],
)  # fmt: skip
def test_english_plurals_also_try_their_singular(word, singular):
    """A plain-ASCII query word in -s, -es or -ies also matches its English singular (the
    Polish stemmer keeps "hallucinations" whole, and the entry is named "hallucination")."""
    assert stem(singular) in english_singulars(word)


@pytest.mark.parametrize("word", ["status", "class", "analysis", "agent", "słowniki", "mcp"])
def test_words_that_are_no_english_plural_get_no_singular(word):
    """Words in -ss, -us, a longer -is, words not ending in s and Polish words with
    diacritics get no English singular."""
    assert english_singulars(word) == []


@pytest.mark.parametrize(
    ("word", "base"),
    [("serwerze", "serwer"), ("kodzie", "kod"), ("kontekście", "kontekst"),
     ("kliencie", "klient"), ("nagłówku", "nagłówek")],
)  # fmt: skip
def test_polish_alternations_also_try_the_base_form(word, base):
    """A query word whose ending softened the stem ("na serwerze", "w kontekście") or lost a
    mobile e ("nagłówku") also matches the base form, which the stemmer alone misses."""
    assert stem(base) in polish_alternations(word)
    assert stem(base) != stem(word)


# --- Parsing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("hej, potrzebuję krótkiej definicji kursora", ["kursora"]),
        ("szukam czegoś o paginacji, pomożesz?", ["paginacji"]),
        ("dzięki, a możesz wyjaśnić idempotentność", ["idempotentność"]),
        ("please tell me about embeddings", ["embeddings"]),
        ("hey, I need a short definition of cursors", ["cursors"]),
    ],
)
def test_chat_greetings_and_requests_are_no_subject(text, subject):
    """Greetings, thanks and requests ("hej", "potrzebuję", "please", "I need") are dropped
    like question frames, in their inflected forms, in Polish and English."""
    assert Query(text).words == subject


@pytest.mark.parametrize("word", ["kroki", "dzieli", "prośby"])
def test_chat_words_have_no_typo_tolerance(word):
    """A subject word one edit from a chat word ("kroki" ~ "krótki") is kept."""
    assert Query(f"jak działają {word}").words == [word]


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("czyn jest kursor", ["kursor"]),
        ("czum są sesje", ["sesje"]),
        ("czyn kursor", ["czyn", "kursor"]),
    ],
)
def test_a_four_letter_frame_with_a_substitution_is_a_frame_before_its_verb(text, subject):
    """ "czyn jest X": a first word one substitution from "czym" followed by "jest"/"są"/"to"
    is the frame mistyped; without the verb it stays a subject word."""
    assert Query(text).words == subject


# --- Matching ------------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["slownik", "SŁOWNIK", "słownik", "  Słownik  "])
def test_case_and_diacritics_are_folded(glossary, query):
    """Case, Polish diacritics (ł included) and surrounding spaces do not matter."""
    hits = search.term_search(query=query)
    assert hits[0].slug == "slownik" and hits[0].match == "name" and hits[0].score == 1.0


@pytest.mark.parametrize(
    ("query", "slug"),
    [
        ("serwerów", "serwer-mcp"),
        ("serwerem", "serwer-mcp"),
        ("agentów", "agent"),
        ("agentow", "agent"),
        ("powiadomienia", "powiadomienie"),
        ("powiadomien", "powiadomienie"),
    ],
)
def test_inflected_queries_find_the_term(glossary, query, slug):
    """Inflected forms, with or without diacritics, find the base term first."""
    assert slugs(search.term_search(query=query))[0] == slug


@pytest.mark.parametrize(
    ("query", "slug"),
    [("strimable http", "streamable-http"), ("agnet", "agent"), ("slownk", "slownik")],
)
def test_typos_in_long_words_are_tolerated(glossary, query, slug):
    """One or two edits in words of five letters or more still find the term (tier "fuzzy")."""
    hits = search.term_search(query=query)
    assert hits[0].slug == slug and hits[0].match == "fuzzy"


def test_short_words_need_no_typo_tolerance(glossary):
    """A three-letter query with a typo finds nothing instead of random names."""
    assert search.term_search(query="mcq") == []


@pytest.mark.parametrize(
    ("query", "slug"),
    [("Server-Sent Events", "sse"), ("server sent events", "sse"), ("glossary", "slownik")],
)
def test_synonyms_and_english_names_rank_high(glossary, query, slug):
    """An exact synonym (punctuation ignored) is the "synonym" tier, right after exact names."""
    hit = search.term_search(query=query)[0]
    assert (hit.slug, hit.match) == (slug, "synonym")


def test_abbreviation_part_of_a_compound(glossary):
    """ "RPC" finds "JSON-RPC" through its hyphenated part."""
    assert slugs(search.term_search(query="RPC"))[0] == "json-rpc"


def test_words_in_any_order(glossary):
    """Multi-word queries match names whatever the order of the words."""
    hit = search.term_search(query="engineering context")[0]
    assert (hit.slug, hit.match) == ("context-engineering", "words")
    assert slugs(search.term_search(query="http streamable"))[0] == "streamable-http"


@pytest.mark.parametrize(("query", "first"), [("s", "serwer-mcp"), ("SS", "sse"), ("ag", "agent")])
def test_one_or_two_letters_match_name_prefixes(glossary, query, first):
    """One or two letters match name prefixes only (never definitions or bodies)."""
    hits = search.term_search(query=query)
    assert hits[0].slug == first
    assert all(
        h.title.casefold().startswith(query.casefold()) for h in hits if h.match != "synonym"
    )


# --- Ranking -------------------------------------------------------------------------------


def test_ranking_tiers(glossary):
    """Exact name > name prefix > definition > body, and scores fall in that order."""
    make_term("Serwerownia", short_definition="Pomieszczenie z maszynami.")
    make_term("Klaster", short_definition="Zespół maszyn, w tym każdy serwer.")
    hits = search.term_search(query="serwer")
    order = [(h.slug, h.match) for h in hits]
    assert order[:2] == [("serwer-mcp", "prefix"), ("serwerownia", "prefix")]
    assert ("klaster", "definition") in order
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert all(s < 1.0 for s in scores)


def test_exact_name_beats_synonym_and_prefix(glossary):
    """A term named exactly like the query comes before one listing it as a synonym."""
    make_term("MCP", short_definition="Model Context Protocol.")
    hits = search.term_search(query="mcp")
    assert (hits[0].slug, hits[0].match, hits[0].score) == ("mcp", "name", 1.0)


def test_ties_are_broken_deterministically():
    """Equal matches come in Polish alphabetical order, then by id."""
    for name in ["Żuraw", "Zebra", "Źrebię", "Zamek"]:
        make_term(name, short_definition="Coś z kolejką w treści.")
    hits = search.term_search(query="kolejka")
    assert [h.title for h in hits] == ["Zamek", "Zebra", "Źrebię", "Żuraw"]


def test_snippet_marks_matches_and_escapes_html():
    """The snippet escapes hostile HTML and marks the matched words, inflected ones too."""
    make_term("Parser", short_definition="<script>alert(1)</script> parsuje serwerów listy.")
    hit = search.term_search(query="serwer parser")
    assert hit == [] or "<script>" not in hit[0].snippet
    hit = search.term_search(query="parser")[0]
    assert "<script>" not in hit.snippet and "&lt;script&gt;" in hit.snippet
    assert "<mark>" not in search.highlight("<b>x</b>", "serwer")
    assert search.highlight("Lista serwerów MCP", "serwer") == "Lista <mark>serwerów</mark> MCP"


def test_articles_rank_title_then_lead_then_body():
    """Articles: a title match first, then lead, then body."""
    body = make_article("Inne", lead="Nic.", body="Tu jest o agentach.")
    lead = make_article("Drugie", lead="Wstęp o agentach.")
    title = make_article("Agentowe wzorce", lead="Wstęp.")
    hits = search.article_search(query="agent")
    assert [h.id for h in hits] == [title.id, lead.id, body.id]
    assert hits[0].match in ("title", "prefix")
    assert [h.match for h in hits[1:]] == ["lead", "body"]


def test_search_page_results_and_exact_match(glossary):
    """`search()` fills terms and articles; an exact name or synonym is offered as `exact`,
    a partial match is not."""
    results = search.search(query="Słownik")
    assert results.exact is not None and results.exact.slug == "slownik"
    assert search.search(query="serwera mcp").exact.slug == "serwer-mcp"
    assert search.search(query="serwera").exact is None


def test_did_you_mean_only_when_nothing_matches(glossary):
    """With no results the page gets "did you mean" suggestions of similar names."""
    results = search.search(query="agentowość kwiatowa")
    assert results.terms == [] and results.articles == []
    assert "agent" in slugs(results.suggestions)
    assert results.weak
    assert search.search(query="agent").suggestions == []


def test_a_typo_beside_an_unknown_word_is_read_as_the_name(glossary):
    """A misspelled name word is corrected even when another word of the query matches
    nothing: the term is found, and the answer says how the query was read."""
    results = search.search(query="agentt kwiatowa")
    assert slugs(results.terms)[0] == "agent"
    assert results.did_you_mean == "agent kwiatowa"
    assert results.corrections == {"agentt": "agent"}


def test_suggest_terms_accepts_a_mistyped_slug(glossary):
    """A mistyped slug (as `get_term` receives it) gets close names suggested."""
    assert slugs(search.suggest_terms(text="serwer-mpc"))[0] == "serwer-mcp"


# --- Visibility ----------------------------------------------------------------------------


def test_drafts_and_scheduled_entries_never_appear():
    """Every engine function starts from `published()`: drafts and future entries stay hidden."""
    make_draft_term("Tajnyszkic", short_definition="Sekret.")
    make_future_term("Tajnyplan", short_definition="Sekret.")
    make_article("Tajnyartykuł", status="draft", lead="Sekret.")
    make_term("Jawny", short_definition="Nie sekret.")
    for query in ["tajny", "tajnyszkic", "tajnyplan", "sekret", "ta", "tajnyszkc"]:
        found = search.term_search(query=query) + search.article_search(query=query)
        found += search.suggest_terms(text=query)
        assert not [h for h in found if h.title.startswith("Tajny")], query
    assert search.complete_term_slugs(prefix="tajny") == []
    assert search.complete_article_slugs(prefix="tajny") == []


# --- Robustness ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query", ["", "   ", "%", "_", "\\", "'", "a%b_c", "!!!", "x" * 5000, "zażółć " * 100, None, 42]
)
def test_hostile_or_odd_input_never_fails(glossary, query):
    """Wildcards, quotes, backslashes, huge or non-text input: results or nothing, no error."""
    assert isinstance(search.term_search(query=query), list)
    assert isinstance(search.article_search(query=query), list)
    assert isinstance(search.suggest_terms(text=query), list)
    assert isinstance(search.search(query=query), search.SearchResults)


def test_like_wildcards_are_literal(glossary):
    """ "%" or "_" in a query is a character, not a wildcard that matches every name."""
    assert search.term_search(query="s%") == []
    assert search.term_search(query="_") == []


def test_limit_is_bounded(glossary):
    """A silly limit is clamped instead of failing or dumping the table."""
    assert len(search.term_search(query="s", limit=0)) == 1
    assert len(search.term_search(query="s", limit="x")) <= 10


# --- Derived columns ----------------------------------------------------------------------


def test_save_refreshes_search_columns(glossary):
    """Renaming a term through save() makes the new name findable and the old one not."""
    term = glossary["agent"]
    term.name = "Automat"
    term.save()
    assert slugs(search.term_search(query="automatem")) == ["agent"]
    assert "agent" not in slugs(search.term_search(query="agent"))


def test_bulk_import_fills_search_columns():
    """Terms written by the bulk import service are searchable at once (refresh_derived)."""
    rows = [
        SourceRow(
            position=f"wiersz {i}",
            data={
                "name": name,
                "slug": slug,
                "short_definition": "Definicja.",
                "synonyms": synonyms,
                "status": "published",
            },
        )
        for i, (name, slug, synonyms) in enumerate(
            [
                ("Kolejka komunikatów", "kolejka-komunikatow", ["message queue"]),
                ("Broker", "broker", ["pośrednik"]),
            ],
            start=1,
        )
    ]
    import_terms(rows)
    assert Term.objects.filter(stems_names__contains=" kolejk").exists()
    assert slugs(search.term_search(query="kolejki komunikatow"))[0] == "kolejka-komunikatow"
    assert slugs(search.term_search(query="posrednikiem"))[0] == "broker"


# --- Query counts -------------------------------------------------------------------------


def test_query_counts_are_constant(glossary, django_assert_num_queries):
    """term_search, article_search, suggest_terms: 1 query; search(): 2 (3 with suggestions)."""
    make_article("Agenci", lead="O agentach.")
    with django_assert_num_queries(1):
        search.term_search(query="serwera mcp")
    with django_assert_num_queries(1):
        search.term_search(query="ag")
    with django_assert_num_queries(1):
        search.article_search(query="agent")
    with django_assert_num_queries(1):
        search.suggest_terms(text="serwr")
    with django_assert_num_queries(2):
        search.search(query="agent")
    with django_assert_num_queries(3):
        search.search(query="zzzzzz qqqqqq")


# --- PostgreSQL: the indexes are usable -----------------------------------------------------


@pytest.mark.postgres
@pytest.mark.parametrize(
    "query",
    ["serwera mcp", "strimable http", "agnet", "czym jest sse", "sse vs websocket", "ser"],
)
def test_postgres_every_candidate_comes_from_an_index(glossary, query):
    """Every candidate arm of the search statement is an operator an index serves (btree
    `=`/range, trigram `LIKE`/`<%`, tsvector `@@`, array `&&`), so none scans the table."""
    with CaptureQueriesContext(connection) as ctx:
        search.term_search(query=query)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + ctx.captured_queries[-1]["sql"])
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "Seq Scan on glossary_term" not in plan and "Index" in plan, plan


@pytest.mark.postgres
def test_postgres_short_query_reads_the_prefix_index(glossary):
    """A one- or two-letter query reads the C-collation btree in order (no sort of all rows).

    The plan is checked on a table large enough, and analyzed, for the planner's choice to be
    the production one: on a few dozen rows with stale statistics any index is as good."""
    Term.objects.bulk_create(
        [
            Term(
                name=f"{a}{b} pojęcie {i}",
                slug=f"{a}{b}-pojecie-{i}",
                short_definition="Wypełnienie tabeli.",
                status="published",
                published_at=glossary["agent"].published_at,
            )
            for i, (a, b) in enumerate(
                (a, b) for a in "abcdefghijklmnoprstuwz" for b in "aeiouy" for _ in range(15)
            )
        ]
    )
    for term in Term.objects.filter(slug__contains="-pojecie-"):
        term.refresh_derived()
        term.save()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE glossary_term")
    with CaptureQueriesContext(connection) as ctx:
        search.term_search(query="se")
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN " + ctx.captured_queries[-1]["sql"])
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "glossary_term_name_folded_c" in plan, plan


@pytest.mark.postgres
def test_postgres_generated_vector_follows_updates(glossary):
    """The stored tsvector is regenerated by PostgreSQL whenever the stem columns change."""
    term = glossary["agent"]
    term.body = "Zupełnie nowe słowo: hipopotam."
    term.save()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT search_vector @@ to_tsquery('simple', %s) FROM glossary_term WHERE id = %s",
            [document_stems("hipopotam").strip(), term.id],
        )
        assert cursor.fetchone()[0] is True


# --- Entry points: page, suggestions endpoint, admin ----------------------------------------


def test_search_page_shows_highlighted_snippets(client, glossary):
    """The search page lists hits with the matched words in <mark>, hostile HTML escaped."""
    make_term("Kolejka", short_definition="Kolejka <img src=x onerror=alert(1)> serwerów.")
    response = client.get(reverse("glossary:search"), {"q": "serwerami"})
    text = response.content.decode()
    assert "<mark>serwerów</mark>" in text
    assert "<img src=x" not in text


def test_suggestions_endpoint(client, glossary, django_assert_num_queries):
    """`/szukaj/podpowiedzi/?q=` answers at most 8 published terms as JSON with their short
    definitions, cacheable for 30 seconds only, in one query; drafts never appear; an empty
    query costs nothing."""
    make_draft_term("Serwerownia tajna", short_definition="Szkic.")
    for i in range(12):
        make_term(f"Serwer zapasowy {i}", short_definition="Kopia.")
    url = reverse("glossary:search_suggest")
    with django_assert_num_queries(1):
        response = client.get(url, {"q": "serw"})
    data = response.json()
    assert response["Content-Type"] == "application/json"
    assert "public" in response["Cache-Control"] and "max-age=30" in response["Cache-Control"]
    assert "max-age=300" not in response["Cache-Control"]
    assert 0 < len(data) <= 8
    assert set(data[0]) == {"name", "slug", "url", "definition", "match"}
    assert data[0]["url"] == reverse("glossary:term", args=[data[0]["slug"]])
    assert not [item for item in data if "tajna" in item["name"]]
    with django_assert_num_queries(0):
        assert client.get(url, {"q": "  "}).json() == []


@pytest.mark.parametrize("query", ["%", "<script>", "\x00x", "a" * 1000])
def test_suggestions_endpoint_survives_odd_input(client, glossary, query):
    """Odd or hostile input gives a JSON list (maybe empty), never a 500."""
    response = client.get(reverse("glossary:search_suggest"), {"q": query})
    assert response.status_code == 200 and isinstance(response.json(), list)


def test_search_box_loads_the_suggestion_script(client, glossary):
    """Every page's search box points the progressive-enhancement script at the endpoint."""
    text = client.get(reverse("glossary:home")).content.decode()
    text += client.get(reverse("glossary:index")).content.decode()
    assert 'data-suggest-url="/szukaj/podpowiedzi/"' in text
    assert "js/suggest.js" in text


def test_admin_search_uses_the_engine_and_sees_drafts(admin_client, glossary):
    """The admin's term search finds inflected and mistyped names, drafts included."""
    draft = make_draft_term("Kolejka komunikatów", short_definition="Szkic.")
    url = reverse("admin:glossary_term_changelist")
    for query in ["kolejkami", "kolejak komunikatow", "serwerów"]:
        text = admin_client.get(url, {"q": query}).content.decode()
        expected = draft if query != "serwerów" else glossary["serwer"]
        assert reverse("admin:glossary_term_change", args=[expected.pk]) in text, query


@pytest.mark.postgres
def test_postgres_statement_text_is_fixed_and_cached_by_psycopg(glossary):
    """Distinct one-sided queries run one and the same statement text (so PostgreSQL plans it
    once per connection), short enough for psycopg's cache of converted statements: over
    `psycopg._queries.MAX_CACHED_STATEMENT_LENGTH` it re-parses the text on every call."""
    from psycopg import _queries

    for query in ["agent", "czym jest sse", "serwera mcp", "agnet", "jak działa paginacja"]:
        search.term_search(query=query)
    shapes = dict(search.statements._compiled.items())
    for query in ["klient", "co to jest kursor", "serwerami", "agnte", "po co jest mcp"]:
        search.term_search(query=query)
    # One text per shape, whatever the query.
    assert dict(search.statements._compiled.items()) == shapes
    sql, _params = search.statements._statement(search.statements.TERMS, 1)
    assert len(sql) <= _queries.MAX_CACHED_STATEMENT_LENGTH
    assert len(_params.order) <= _queries.MAX_CACHED_STATEMENT_PARAMS


@pytest.mark.postgres
@pytest.mark.parametrize(
    "query",
    ["agent", "agnet", "serwerów", "mcp", "zdarzeń", "programy", "http", "kontekstu", "qxqx"],
)
def test_postgres_one_word_shape_ranks_as_the_general_statement(glossary, query):
    """The one-word statement (its tests read the parameters, no subplan per candidate) is
    only a faster text of the general one-sided statement: for a single word both return the
    same rows, scores and levels, for terms and for articles."""
    from django.utils import timezone

    from glossary.search import postgres, statements
    from glossary.search.query import Query

    make_article("Agent i serwer MCP", lead="Jak agent łączy się z serwerem.", body="Zdarzenia.")
    q, now = Query(query), timezone.now()
    assert len(q.words) == 1
    for table in (statements.TERMS, statements.ARTICLES):
        found = []
        for shape in ("word", 1):
            sql, params = statements._statement(table, shape)
            with connection.cursor() as cursor:
                cursor.execute(sql, params.fill(postgres._values(table, q, 10, now)))
                found.append(cursor.fetchall())
        assert found[0] == found[1], (table.table, query)


@pytest.mark.postgres
def test_postgres_short_article_query_reads_the_title_index():
    """One or two letters search article titles by a C-collation btree range (migration
    0005), not a scan of the table."""
    make_article("Agenci w praktyce", lead="O agentach.")
    with CaptureQueriesContext(connection) as ctx:
        search.article_search(query="ag")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + ctx.captured_queries[-1]["sql"])
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "glossary_article_title_folded_c" in plan, plan


@pytest.mark.django_db
def test_ranked_ids_are_the_ids_of_the_searches_in_their_order(django_assert_num_queries):
    """`ranked_ids` gives exactly the ids, in the same order, that `term_search` and
    `article_search` rank for a query (one query, no hits built); drafts never appear."""
    for name in ("Strumień", "Strumień zdarzeń", "Strumieniowanie", "Serwer strumieni"):
        make_term(name, short_definition=f"{name}: krótko.")
    make_draft_term("Strumień szkic")
    sse = make_term("SSE", short_definition="Strumień zdarzeń z serwera.")
    make_article("Strumienie w praktyce", terms=[sse])
    make_article("Strumień zdarzeń od podstaw", terms=[sse])
    for query in ("strumień", "strum", "serwer strumieni", "xyz"):
        terms = [hit.id for hit in search.term_search(query=query, limit=100)]
        articles = [hit.id for hit in search.article_search(query=query, limit=100)]
        with django_assert_num_queries(1 if query.strip() else 0):
            assert search.ranked_ids(kind="term", query=query) == terms
        assert search.ranked_ids(kind="article", query=query) == articles
    assert search.ranked_ids(kind="term", query="strumień")
    assert search.ranked_ids(kind="term", query="  ") == []


def test_control_characters_are_unicodes_category_cc():
    """`without_controls` turns exactly Unicode's control characters (category Cc) into
    spaces and keeps every other character: the rule the search page and the REST API's
    `search` apply before a query reaches an engine."""
    import sys
    import unicodedata

    from glossary.search.query import without_controls

    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    expected = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in every)
    assert without_controls(every) == expected


def test_an_article_titled_with_the_querys_words_ranks_first():
    """Among articles of one tier, the one whose title holds the query's words as typed
    (question words too) ranks first: "czym jest mcp" finds "MCP od podstaw, cz. 1: czym
    jest MCP…" before the newer parts, in the engine, the REST API's ranked ids and the
    search page alike."""
    from datetime import timedelta

    from django.test import Client
    from django.utils import timezone

    now = timezone.now()
    titles = [
        "MCP od podstaw, cz. 1: czym jest MCP i dlaczego mówi językiem JSON-RPC",
        "MCP od podstaw, cz. 2: transporty stdio, SSE i Streamable HTTP",
        "MCP od podstaw, cz. 3: debugowanie serwera MCP curlem",
    ]
    articles = [
        make_article(title, published_at=now - timedelta(days=10 - i))
        for i, title in enumerate(titles)
    ]
    first = articles[0]
    assert search.article_search(query="czym jest mcp", limit=10)[0].id == first.id
    assert search.ranked_ids(kind="article", query="czym jest mcp")[0] == first.id
    page = Client().get("/szukaj/", {"q": "czym jest mcp"}).content.decode()
    positions = [page.index(a.get_absolute_url()) for a in articles]
    assert positions[0] == min(positions)
