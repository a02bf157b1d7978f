"""Auto-linking: which mentions of a published term become links (table-driven rules), and
how stored links follow the glossary as it changes (publish, rename, unpublish, delete,
scheduled publication), on both databases."""

# ruff: noqa: E501 (case tables keep one case per line)

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from glossary import autolink, importing, services
from glossary.autolink import Linker, Target
from glossary.markdown import render_markdown
from glossary.models import Article, Status, Term
from tests.factories import make_article, make_draft_term, make_term

TERMS = [
    (Target(1, "serwer-mcp", "Serwer MCP", "Program udostępniający narzędzia."), ["Serwer MCP", "serwer"]),
    (Target(2, "mcp", "MCP", "Protokół kontekstu modeli."), ["MCP", "Model Context Protocol"]),
    (Target(3, "json", "JSON", "Format danych."), ["JSON"]),
    (Target(4, "json-rpc", "JSON-RPC", "Zdalne wywołania w JSON."), ["JSON-RPC"]),
    (Target(5, "agent", "Agent", "Program działający w imieniu człowieka."), ["Agent", "agenci"]),
    (Target(6, "zasob", "Zasób", "Dane udostępniane modelowi."), ["Zasób", "zasoby"]),
    (Target(7, "ws", "ws", "WebSocket."), ["ws"]),
]  # fmt: skip
LINKER = Linker(TERMS)


def linked(markdown: str, exclude=None) -> list[tuple[str, str]]:
    """(slug, linked text) for every auto-link in the rendered `markdown`."""
    html = LINKER.link(render_markdown(markdown), exclude=exclude).html
    return re.findall(r'<a href="[^"]*" class="term-link" data-term="([^"]+)"[^>]*>(.*?)</a>', html)


# (rule, Markdown, expected links)
RULES = [
    ("an inflected form links the term", "Łączymy się z serwerem MCP.", [("serwer-mcp", "serwerem MCP")]),
    ("the nominative links too", "Serwer MCP odpowiada.", [("serwer-mcp", "Serwer MCP")]),
    ("case is ignored for ordinary words", "SERWERA nie było.", [("serwer-mcp", "SERWERA")]),
    ("longest match wins", "serwer MCP i serwer", [("serwer-mcp", "serwer MCP")]),
    ("a shorter name inside a linked one is not linked", "serwery MCP", [("serwer-mcp", "serwery MCP")]),
    ("only the first mention is linked", "MCP, potem MCP i MCP.", [("mcp", "MCP")]),
    ("a synonym links the term", "Model Context Protocol to standard.", [("mcp", "Model Context Protocol")]),
    ("a declined synonym links the term", "agenci i zasoby", [("agent", "agenci"), ("zasob", "zasoby")]),
    ("genitive plural", "Lista zasobów.", [("zasob", "zasobów")]),
    ("acronyms match only in capitals", "mcp małymi, potem MCP.", [("mcp", "MCP")]),
    ("short names match only as written", "WS i ws", [("ws", "ws")]),
    ("never inside inline code", "`MCP` w kodzie, potem MCP.", [("mcp", "MCP")]),
    ("never inside a code block", "```\nMCP\n```\n\nMCP", [("mcp", "MCP")]),
    ("never inside headings", "# Serwer MCP\n\nTekst o MCP.", [("mcp", "MCP")]),
    ("never inside links", "[MCP](https://example.com) i [serwer](https://x.pl)", []),
    ("never inside bare URLs", "https://example.com/mcp", []),
    ("an inline exclusion", "[MCP]{.bez-linkow} i dalej MCP", [("mcp", "MCP")]),
    ("a block exclusion", "::: bez-linkow\nSerwer MCP\n:::\n\nMCP", [("mcp", "MCP")]),
    ("no half of a compound", "JSON-RPC, a potem JSON.", [("json-rpc", "JSON-RPC"), ("json", "JSON")]),
    ("a hyphenated ending goes with the word", "Wysyłamy JSON-a.", [("json", "JSON-a")]),
    ("no match across a comma", "serwer, MCP", [("serwer-mcp", "serwer"), ("mcp", "MCP")]),
    ("no match across an element", "serwer *MCP*", [("serwer-mcp", "serwer"), ("mcp", "MCP")]),
    ("words inside other words are not names", "Serwerownia i agentura.", []),
    ("inside emphasis and lists", "- *Agenci* działają", [("agent", "Agenci")]),
    ("inside tables", "| a |\n|---|\n| MCP |", [("mcp", "MCP")]),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "markdown", "expected"), RULES, ids=[r[0] for r in RULES])
def test_linking_rules(rule, markdown, expected):
    """Each rule of what a mention is (see glossary/autolink.py), in its own case."""
    assert linked(markdown) == expected


def test_a_term_is_never_linked_to_itself():
    """A term's own body does not link its own name (its id is excluded)."""
    assert linked("Serwer MCP i MCP.", exclude=1) == [("mcp", "MCP")]


def test_hostile_names_and_definitions_are_escaped():
    """A definition or slug with HTML is escaped inside the link's attributes."""
    hostile = Linker([(Target(9, "x", "Atak", '"><script>alert(1)</script>'), ["Atak"])])
    html = hostile.link(render_markdown("Atak tutaj.")).html
    assert "<script>" not in html
    assert 'title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in html


def test_attribute_text_and_entities_are_not_matched():
    """Words inside attributes (title, href) and HTML entities are never linked."""
    html = render_markdown('<abbr title="MCP">skrót</abbr> &amp; ![MCP](https://x/mcp.png)')
    assert LINKER.link(html).html == ""


def test_linking_5000_words_keeps_the_rest_of_the_html_intact():
    """Only anchors are added: removing them gives back the original HTML."""
    html = render_markdown(("Agenci łączą się z serwerem MCP przez JSON-RPC. " * 300) + "\n\n`MCP`")
    out = LINKER.link(html).html
    assert re.sub(r'<a href="[^"]*" class="term-link"[^>]*>(.*?)</a>', r"\1", out) == html


# --- stored links follow the glossary (services, both databases) ------------------------------

pytestmark_db = pytest.mark.django_db


def article_links(article) -> list[str]:
    article.refresh_from_db()
    return re.findall(r'data-term="([^"]+)"', article.linked_html)


def save(entry, **changes):
    for key, value in changes.items():
        setattr(entry, key, value)
    if isinstance(entry, Term):
        return services.save_term(entry)
    return services.save_article(entry)


@pytest.fixture
def glossary(db):
    autolink.clear_cache()
    serwer = services.save_term(Term(name="Serwer MCP", slug="serwer-mcp", status=Status.PUBLISHED,
                                     short_definition="Program.", synonyms=["serwer"]))  # fmt: skip
    mcp = services.save_term(
        Term(name="MCP", slug="mcp", status=Status.PUBLISHED, short_definition="Protokół.")
    )
    article = services.save_article(
        Article(title="Tekst", status=Status.PUBLISHED, body="Łączymy się z serwerem MCP. MCP.")
    )
    return {"serwer": serwer, "mcp": mcp, "article": article}


@pytest.mark.django_db
def test_saving_an_article_stores_its_links_and_mentions(glossary):
    """An article saved through the service is linked and its mentions are stored."""
    assert article_links(glossary["article"]) == ["serwer-mcp", "mcp"]
    assert set(glossary["article"].mentions.values_list("slug", flat=True)) == {"serwer-mcp", "mcp"}


@pytest.mark.django_db
def test_a_draft_is_never_linked_and_publishing_links_it(glossary):
    """A draft term links nowhere; publishing it links it into texts that mention it."""
    term = services.save_term(Term(name="Narzędzie", slug="narzedzie", status=Status.DRAFT))
    article = services.save_article(Article(title="A", body="Serwer udostępnia narzędzia."))
    assert article_links(article) == ["serwer-mcp"]
    services.publish_entries(entries=Term.objects.filter(pk=term.pk), editor=None)
    # Publishing needs a definition: the draft above has none, so it was skipped.
    assert article_links(article) == ["serwer-mcp"]
    save(term, short_definition="Funkcja serwera.")
    services.publish_entries(entries=Term.objects.filter(pk=term.pk), editor=None)
    assert article_links(article) == ["serwer-mcp", "narzedzie"]


@pytest.mark.django_db
def test_renaming_a_term_relinks_every_text(glossary):
    """After a rename, texts that used the old name drop the link, texts with the new
    name gain it, and links point to the new slug."""
    save(glossary["mcp"], name="Model Context Protocol", slug="model-context-protocol")
    assert article_links(glossary["article"]) == ["serwer-mcp"]
    other = services.save_article(Article(title="B", body="O Model Context Protocolu."))
    assert article_links(other) == ["model-context-protocol"]
    save(glossary["mcp"], synonyms=["MCP"])
    assert article_links(glossary["article"]) == ["serwer-mcp", "model-context-protocol"]
    assert 'href="/slownik/model-context-protocol/"' in glossary["article"].linked_html


@pytest.mark.django_db
def test_unpublishing_and_deleting_a_term_remove_its_links(glossary):
    """Unpublish: the link goes (and comes back on publish); delete: it goes for good."""
    services.unpublish_entries(entries=[glossary["mcp"]], editor=None)
    assert article_links(glossary["article"]) == ["serwer-mcp"]
    services.publish_entries(entries=[glossary["mcp"]], editor=None)
    assert article_links(glossary["article"]) == ["serwer-mcp", "mcp"]
    services.delete_entries(entries=[glossary["serwer"]])
    assert article_links(glossary["article"]) == ["mcp"]
    assert "Łączymy się z serwerem MCP." not in glossary["article"].linked_html  # MCP linked


@pytest.mark.django_db
def test_a_changed_definition_updates_the_tooltips(glossary):
    """The tooltip text (title) follows the term's short definition."""
    save(glossary["mcp"], short_definition="Nowa definicja.")
    glossary["article"].refresh_from_db()
    assert 'title="Nowa definicja."' in glossary["article"].linked_html


@pytest.mark.django_db
def test_switching_linking_off(glossary):
    """Per article (autolink), per term body (autolink) and per term everywhere (linkable)."""
    save(glossary["article"], autolink=False)
    assert glossary["article"].linked_html == "" and not glossary["article"].mentions.exists()
    save(glossary["article"], autolink=True)
    save(glossary["mcp"], linkable=False)
    assert article_links(glossary["article"]) == ["serwer-mcp"]
    save(glossary["serwer"], body="Mówi protokołem MCP.", autolink=False)
    glossary["serwer"].refresh_from_db()
    assert glossary["serwer"].linked_html == ""


@pytest.mark.django_db
def test_english_names_and_asked_as_phrases_never_become_links(glossary):
    """A term's English name and the phrases readers asked by (`asked_as`) are searched but
    never linked: another term's body and an article that use them get no link, also after
    the term is saved again with them."""
    save(glossary["mcp"], english_name="Context Protocol", asked_as=["kontekst agenta"])
    term = services.save_term(Term(name="Klient", slug="klient", status=Status.PUBLISHED,
                                   short_definition="Program.", body="Context Protocol i "
                                   "kontekst agenta w treści pojęcia."))  # fmt: skip
    article = services.save_article(
        Article(title="C", status=Status.PUBLISHED, body="Context Protocol, kontekst agenta.")
    )
    term.refresh_from_db()
    assert article_links(article) == [] and 'class="term-link"' not in term.linked_html
    save(glossary["mcp"], english_definition="A protocol.")
    article.refresh_from_db()
    assert article_links(article) == []


@pytest.mark.django_db
def test_scheduled_term_is_linked_when_it_comes_due(glossary, monkeypatch):
    """A term published for later is not linked until `publish_due` runs after its time,
    which also sends its change event."""
    sent = []
    monkeypatch.setattr("glossary.events._send", lambda sends: sent.extend(sends))
    services.publish_due()  # starts the clock
    future = timezone.now() + timedelta(hours=1)
    services.save_term(Term(name="Agent", slug="agent", status=Status.PUBLISHED,
                            short_definition="Program.", published_at=future))  # fmt: skip
    article = services.save_article(
        Article(title="C", status=Status.PUBLISHED, body="Agenta nie ma.")
    )
    assert article_links(article) == []
    later = future + timedelta(minutes=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    with django_capture_on_commit():
        due = services.publish_due()
    assert [entry.slug for entry in due] == ["agent"]
    assert article_links(article) == ["agent"]
    assert ("term-agent", "updated", {"kind": "term", "slug": "agent", "change": "published",
            "list_changed": True}) in sent  # fmt: skip
    assert services.publish_due() == []  # announced once


def django_capture_on_commit():
    from django.test import TestCase

    return TestCase.captureOnCommitCallbacks(execute=True)


@pytest.mark.django_db
def test_editing_one_term_relinks_only_the_texts_it_concerns(
    glossary, django_assert_max_num_queries
):
    """A definition change touches the texts that mention the term, not the whole site: an
    unrelated article's stored HTML is not rewritten."""
    unrelated = services.save_article(Article(title="D", body="Nic tu nie ma."))
    before = Article.objects.filter(pk=unrelated.pk).values_list("linked_html", "updated_at")[0]
    save(glossary["mcp"], short_definition="Inna.")
    after = Article.objects.filter(pk=unrelated.pk).values_list("linked_html", "updated_at")[0]
    assert before == after
    _terms, articles = autolink.texts_affected(
        {glossary["mcp"].pk: (autolink.state_of(glossary["mcp"]), None)}
    )
    assert articles == {glossary["article"].pk}


@pytest.mark.django_db
def test_pages_show_the_linked_body_and_the_page_costs_the_same(
    glossary, client, django_assert_num_queries
):
    """The article page shows the stored links with the definition as title, and its query
    count is the same as before auto-linking (the detail read's 1, after the page cache's
    content-state read)."""
    url = glossary["article"].get_absolute_url()
    with django_assert_num_queries(1 + 1):
        text = client.get(url).content.decode()
    assert (
        f'<a href="{reverse("glossary:term", args=["mcp"])}" class="term-link" data-term="mcp" title="Protokół.">MCP</a>'
        in text
    )


@pytest.mark.django_db
def test_mcp_documents_list_the_terms_a_text_mentions(glossary):
    """get_term and get_article data (and Markdown) list the published terms mentioned."""
    from glossary import selectors
    from mcp_endpoint.features.presenters import article_data, article_markdown, term_data

    data = article_data(selectors.article_detail(slug=glossary["article"].slug), "https://s")
    assert [m["slug"] for m in data["mentions"]] == ["mcp", "serwer-mcp"]
    assert "## Pojęcia wspomniane w treści" in article_markdown(data)
    save(glossary["serwer"], body="Mówi protokołem MCP.")
    assert [
        m["slug"]
        for m in term_data(selectors.term_detail(slug="serwer-mcp"), "https://s")["mentions"]
    ] == ["mcp"]
    services.unpublish_entries(entries=[glossary["mcp"]], editor=None)
    assert term_data(selectors.term_detail(slug="serwer-mcp"), "https://s")["mentions"] == []


@pytest.mark.django_db
def test_import_links_terms_and_relink_command_repairs_raw_edits(glossary):
    """The import links the bodies it writes; `relink_texts` repairs a raw SQL edit."""
    import json

    from django.core.management import call_command

    from glossary.importexport import parse_json

    importing.import_terms(parse_json(json.dumps([{"name": "Agent", "slug": "agent",
        "short_definition": "Program.", "status": "published", "body": "Agent używa MCP."}])))  # fmt: skip
    agent = Term.objects.get(slug="agent")
    assert re.findall(r'data-term="([^"]+)"', agent.linked_html) == ["mcp"]
    Article.objects.filter(pk=glossary["article"].pk).update(linked_html="")
    call_command("relink_texts", verbosity=0)
    assert article_links(glossary["article"]) == ["serwer-mcp", "mcp"]


def test_make_helpers_exist():
    """The factories used here stay importable (shared helpers)."""
    assert make_article and make_draft_term and make_term


@pytest.mark.django_db(transaction=True)
def test_large_relinks_in_worker_processes_give_the_same_links(glossary, monkeypatch):
    """Relinking many texts forks workers (as the import's rendering does); the stored
    links are the same as when linking in process."""
    for i in range(6):
        services.save_article(Article(title=f"W{i}", slug=f"w-{i}", body=f"MCP i serwer {i}."))
    Article.objects.update(linked_html="")
    monkeypatch.setattr(autolink, "_PARALLEL_FROM", 2)
    ids = list(Article.objects.values_list("id", flat=True))
    autolink.relink(articles=ids)
    parallel = dict(Article.objects.values_list("id", "linked_html"))
    Article.objects.update(linked_html="")
    monkeypatch.setattr(autolink, "_PARALLEL_FROM", 10**9)
    autolink.relink(articles=ids)
    assert parallel == dict(Article.objects.values_list("id", "linked_html"))
    assert all('data-term="mcp"' in html for html in parallel.values())
